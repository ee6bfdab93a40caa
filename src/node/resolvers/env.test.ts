import { describe, expect, it } from 'vitest'
import type { OsAdapter } from '../adapters.js'
import { envResolver } from './env.js'

function osWith(env: Record<string, string>): OsAdapter & { reads: string[] } {
  const reads: string[] = []
  return {
    reads,
    platform: () => 'linux',
    release: () => '6.1.0',
    hostname: () => 'h',
    homedir: () => '/home/test',
    env: (name) => {
      reads.push(name)
      return env[name]
    },
  }
}

describe('env resolver', () => {
  it('reads allowed names through the OS adapter and never the others', async () => {
    const os = osWith({ CI: 'true', SECRET_TOKEN: 'sk-123', EMPTY: '' })
    const resolver = envResolver({ os, allowlist: ['CI', 'EMPTY', 'UNSET'] })
    const values = await resolver.resolve(
      ['env:CI', 'env:SECRET_TOKEN', 'env:EMPTY', 'env:UNSET', 'env:ci'],
      {},
    )
    expect(Object.fromEntries(values)).toEqual({
      'env:CI': 'true',
      'env:SECRET_TOKEN': null,
      'env:EMPTY': '',
      'env:UNSET': null,
      'env:ci': null,
    })
    expect(os.reads.sort()).toEqual(['CI', 'EMPTY', 'UNSET'])
  })

  it('allows nothing by default', async () => {
    const os = osWith({ HOME: '/home/test' })
    const values = await envResolver({ os, allowlist: [] }).resolve(['env:HOME'], {})
    expect(values.get('env:HOME')).toBeNull()
    expect(os.reads).toEqual([])
  })

  it('lists allowed names and a pattern entry, never values', () => {
    const os = osWith({ CI: 'true' })
    const catalog = envResolver({ os, allowlist: ['CI'] }).describe()
    expect(catalog.map((i) => [i.key, i.stability, i.pattern ?? false])).toEqual([
      ['env:CI', 'session', false],
      ['env:<NAME>', 'session', true],
    ])
    expect(JSON.stringify(catalog)).not.toContain('true"')
    expect(os.reads).toEqual([])
  })
})
