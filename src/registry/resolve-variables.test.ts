import { describe, expect, it } from 'vitest'
import { keyStability, resolveVariables } from './resolve-variables.js'
import type { VariableResolver } from './types.js'

function recording(
  namespace: string,
  values: Record<string, string | null>,
  calls: string[][],
): VariableResolver {
  return {
    namespace,
    describe: () => [
      { key: `${namespace}:fixed`, description: 'a fixed key', stability: 'static' },
      { key: `${namespace}:<any>`, description: 'any other key', stability: 'turn', pattern: true },
    ],
    async resolve(keys) {
      calls.push([...keys])
      return new Map(keys.filter((k) => k in values).map((k) => [k, values[k] ?? null]))
    },
  }
}

describe('resolveVariables', () => {
  it('asks each resolver once, for its own keys only, deduplicated', async () => {
    const calls: string[][] = []
    const git = recording('git', { 'git:branch': 'main' }, calls)
    const file = recording('file', { 'file:a.md': 'A' }, calls)
    const values = await resolveVariables([git, file], ['git:branch', 'file:a.md', 'git:branch', 'file:b.md'])
    expect(calls).toEqual([['git:branch'], ['file:a.md', 'file:b.md']])
    expect(values).toEqual(
      new Map([
        ['git:branch', 'main'],
        ['file:a.md', 'A'],
        ['file:b.md', null],
      ]),
    )
  })

  it('resolves keys of a namespace without a resolver, and plain keys, to null without asking anyone', async () => {
    const calls: string[][] = []
    const values = await resolveVariables([recording('git', {}, calls)], ['env:HOME', 'model'])
    expect(calls).toEqual([])
    expect(values).toEqual(
      new Map([
        ['env:HOME', null],
        ['model', null],
      ]),
    )
  })

  it('lets the last resolver of a namespace win', async () => {
    const first = recording('git', { 'git:branch': 'first' }, [])
    const second = recording('git', { 'git:branch': 'second' }, [])
    expect((await resolveVariables([first, second], ['git:branch'])).get('git:branch')).toBe('second')
  })
})

describe('keyStability', () => {
  it('takes the entry naming the key, else the pattern entry, else session', () => {
    const git = recording('git', {}, [])
    expect(keyStability(git, 'git:fixed')).toBe('static')
    expect(keyStability(git, 'git:other')).toBe('turn')
    expect(keyStability(undefined, 'git:fixed')).toBe('session')
  })
})
