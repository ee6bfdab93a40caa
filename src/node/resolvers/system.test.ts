import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { OsAdapter } from '../adapters.js'
import { ResolverOptionError, systemResolver } from './system.js'

const os: OsAdapter = {
  platform: () => 'linux',
  release: () => '6.1.0',
  hostname: () => 'build-01',
  homedir: () => '/home/test',
  env: () => undefined,
}
const at = (iso: string) => ({ now: () => new Date(iso) })
const ALL = ['system:date', 'system:time', 'system:os', 'system:hostname']

describe('system resolver', () => {
  it('formats date and time in the configured time zone', async () => {
    const utc = await systemResolver({ clock: at('2025-01-31T23:30:00Z'), os, timeZone: 'UTC' }).resolve(
      ALL,
      {},
    )
    expect(Object.fromEntries(utc)).toEqual({
      'system:date': '2025-01-31',
      'system:time': '23:30',
      'system:os': 'linux 6.1.0',
      'system:hostname': 'build-01',
    })
    const tokyo = await systemResolver({
      clock: at('2025-01-31T23:30:00Z'),
      os,
      timeZone: 'Asia/Tokyo',
    }).resolve(['system:date', 'system:time'], {})
    expect(Object.fromEntries(tokyo)).toEqual({ 'system:date': '2025-02-01', 'system:time': '08:30' })
  })

  it('writes midnight as 00, never 24', async () => {
    const values = await systemResolver({ clock: at('2025-06-01T00:05:00Z'), os, timeZone: 'UTC' }).resolve(
      ['system:time'],
      {},
    )
    expect(values.get('system:time')).toBe('00:05')
  })

  it('always yields YYYY-MM-DD and HH:MM, whatever the instant and zone', async () => {
    const zones = ['UTC', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Kiritimati', 'Europe/Paris']
    await fc.assert(
      fc.asyncProperty(
        fc.date({
          min: new Date('1970-01-01T00:00:00Z'),
          max: new Date('9999-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.constantFrom(...zones),
        async (date, timeZone) => {
          const values = await systemResolver({ clock: { now: () => date }, os, timeZone }).resolve(
            ['system:date', 'system:time'],
            {},
          )
          expect(values.get('system:date')).toMatch(/^\d{4}-\d{2}-\d{2}$/)
          expect(values.get('system:time')).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/)
        },
      ),
    )
  })

  it('reads the clock only when a date or time is asked, and once per call', async () => {
    let reads = 0
    const clock = {
      now: () => {
        reads++
        return new Date('2025-01-31T10:00:00Z')
      },
    }
    const resolver = systemResolver({ clock, os, timeZone: 'UTC' })
    await resolver.resolve(['system:os'], {})
    expect(reads).toBe(0)
    await resolver.resolve(['system:date', 'system:time'], {})
    expect(reads).toBe(1)
  })

  it('uses the process time zone by default', async () => {
    const saved = process.env.TZ
    process.env.TZ = 'Asia/Tokyo'
    try {
      const values = await systemResolver({ clock: at('2025-01-31T23:30:00Z'), os }).resolve(
        ['system:date'],
        {},
      )
      expect(values.get('system:date')).toBe('2025-02-01')
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })

  it('rejects an unknown time zone when built', () => {
    expect(() => systemResolver({ clock: at('2025-01-31T12:00:00Z'), os, timeZone: 'Mars/Olympus' })).toThrow(
      ResolverOptionError,
    )
  })

  it('describes each key with its stability and leaves unknown keys absent', async () => {
    const resolver = systemResolver({ clock: at('2025-01-31T12:00:00Z'), os, timeZone: 'UTC' })
    expect(resolver.describe().map((i) => [i.key, i.stability])).toEqual([
      ['system:date', 'turn'],
      ['system:time', 'turn'],
      ['system:os', 'static'],
      ['system:hostname', 'static'],
    ])
    expect((await resolver.resolve(['system:uptime'], {})).get('system:uptime')).toBeNull()
  })
})
