import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../errors.js'
import { durationOption, sizeOption } from './record-store.js'

describe('record --max-size and --older-than', () => {
  it('reads sizes in bytes and binary or decimal units', () => {
    expect(sizeOption('1GiB')).toBe(1024 ** 3)
    expect(sizeOption('500MiB')).toBe(500 * 1024 ** 2)
    expect(sizeOption('2gb')).toBe(2e9)
    expect(sizeOption('4096')).toBe(4096)
    expect(() => sizeOption('lots')).toThrow(UsageError)
    expect(() => sizeOption('5 parsecs')).toThrow(/not a size/)
  })

  it('reads durations in minutes, hours, days and weeks', () => {
    expect(durationOption('90m')).toBe(90 * 60_000)
    expect(durationOption('12h')).toBe(12 * 3_600_000)
    expect(durationOption('30d')).toBe(30 * 86_400_000)
    expect(durationOption('2w')).toBe(14 * 86_400_000)
    expect(() => durationOption(undefined)).toThrow(/--older-than \(missing\)/)
    expect(() => durationOption('-1d')).toThrow(UsageError)
  })

  it('any text is a value or a usage error, never anything else', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        for (const read of [sizeOption, durationOption]) {
          try {
            const n = read(text)
            if (!Number.isFinite(n) || n < 0) return false
          } catch (error) {
            if (!(error instanceof UsageError)) return false
          }
        }
        return true
      }),
    )
  })
})
