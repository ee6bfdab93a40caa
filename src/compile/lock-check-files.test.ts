import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { compile } from './compile.js'
import { promptOf } from './fixtures.test-helper.js'
import { checkLock, createLock, type LockEntry } from './index.js'
import type { CompiledPrompt } from './types.js'

// `checkLock` on sections that include files: the blame goes to the file when
// only it changed, to the section when its own text did, and to both when
// both did. Then which sections of equal order it reports as moved.

const UPDATE = 'If the change is intended, run `sysprompt check --update`.'

/** A one-section prompt: `own` text, then the files in `files` included by the bracket dialect. */
function docs(own: string, files: Record<string, string>): CompiledPrompt {
  const includes = Object.keys(files).map((path) => `[file:${path}]`)
  return compile(
    {
      sections: [
        {
          name: 'docs',
          order: 0,
          text: [own, ...includes].join('\n'),
          dialect: 'bracket',
          stability: 'session',
        },
      ],
      tools: [],
      variables: Object.fromEntries(Object.entries(files).map(([path, text]) => [`file:${path}`, text])),
      stability: {},
    },
    { tokenizer: 'estimate' },
  )
}

const short = (hash: string) => `${hash.slice(0, 19)}…`

/** The changed-section message of `docs` between `lock` and `compiled`. */
function sectionChanged(lock: LockEntry, compiled: CompiledPrompt): string {
  const was = lock.sections[0]!.hash
  const now = compiled.sections[0]!.hash
  return `section "docs" changed: ${short(was)} → ${short(now)}, ${tokens(lock, compiled)}. ${UPDATE}`
}

function tokens(lock: LockEntry, compiled: CompiledPrompt): string {
  const was = lock.sections[0]!.tokens
  const now = compiled.sections[0]!.tokens
  return `${was} → ${now} tokens (${now >= was ? '+' : '−'}${Math.abs(now - was)})`
}

describe('checkLock: sections that include files', () => {
  const before = docs('Read these:', { 'A.md': 'alpha one', 'B.md': 'beta one' })
  const lock = createLock(before)

  it('blames only the file when only an included file changed', () => {
    const compiled = docs('Read these:', { 'A.md': 'alpha two, longer', 'B.md': 'beta one' })
    expect(checkLock(compiled, lock).differences).toEqual([
      {
        section: 'docs',
        file: 'A.md',
        lines: [2, 2],
        kind: 'changed',
        message: `A.md changed, at prompt line 2 in section "docs": ${tokens(lock, compiled)} for the section. ${UPDATE}`,
      },
    ])
  })

  it('blames the section and the file when both changed', () => {
    const compiled = docs('Read these first:', { 'A.md': 'alpha one', 'B.md': 'beta two' })
    expect(checkLock(compiled, lock).differences).toEqual([
      { section: 'docs', kind: 'changed', message: sectionChanged(lock, compiled) },
      {
        section: 'docs',
        file: 'B.md',
        lines: [3, 3],
        kind: 'changed',
        message: `B.md changed, at prompt line 3 in section "docs": ${tokens(lock, compiled)} for the section. ${UPDATE}`,
      },
    ])
  })

  it('blames only the section when its own text changed and every file is the same', () => {
    const compiled = docs('Read both:', { 'A.md': 'alpha one', 'B.md': 'beta one' })
    expect(checkLock(compiled, lock).differences).toEqual([
      { section: 'docs', kind: 'changed', message: sectionChanged(lock, compiled) },
    ])
  })

  it('blames the section when the same files with the same text are included in another order', () => {
    const compiled = docs('Read these:', { 'B.md': 'beta one', 'A.md': 'alpha one' })
    expect(checkLock(compiled, lock).differences).toEqual([
      { section: 'docs', kind: 'changed', message: sectionChanged(lock, compiled) },
    ])
  })

  it('blames the section, and lists its files as new, against a lock written before files were recorded', () => {
    const old: LockEntry = {
      ...lock,
      sections: lock.sections.map(({ textHash: _, files: __, ...rest }) => rest),
    }
    const compiled = docs('Read these:', { 'A.md': 'alpha two', 'B.md': 'beta one' })
    expect(checkLock(compiled, old).differences.map((d) => [d.kind, d.file])).toEqual([
      ['changed', undefined],
      ['added', 'A.md'],
      ['added', 'B.md'],
    ])
  })

  it('blames the section, and lists the files as gone, when it includes none any more', () => {
    const compiled = docs('Read these:', {})
    expect(checkLock(compiled, lock).differences).toEqual([
      { section: 'docs', kind: 'changed', message: sectionChanged(lock, compiled) },
      ...(['A.md', 'B.md'] as const).map((file, i) => ({
        section: 'docs',
        file,
        lines: [i + 2, i + 2],
        kind: 'removed',
        message: `${file} is no longer included in section "docs" (it was at prompt line ${i + 2}): ${tokens(lock, compiled)} for the section. ${UPDATE}`,
      })),
    ])
  })
})

describe('checkLock: the lock entries it compares', () => {
  it('records no source key for a section without one', () => {
    const lock = createLock(promptOf([{ name: 'a', text: 'A.' }]))
    expect(Object.keys(lock.sections[0]!)).toEqual(['name', 'order', 'hash', 'tokens'])
  })

  it('quotes a hash of 19 characters whole, and a longer one cut to 19 with an ellipsis', () => {
    const compiled = promptOf([{ name: 'a', text: 'A.' }])
    const lock = createLock(compiled)
    const quoted = (hash: string) =>
      checkLock(compiled, { ...lock, hash }).differences.map((d) => d.message.split(' though')[0])
    expect(quoted('sha256:0123456789ab')).toEqual([
      'the prompt text changed (sha256:0123456789ab → ' + short(compiled.hash) + ')',
    ])
    expect(quoted('sha256:0123456789abc')).toEqual([
      'the prompt text changed (sha256:0123456789ab… → ' + short(compiled.hash) + ')',
    ])
  })
})

/** The length of a longest common subsequence of `a` and `b`. */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  let row = new Array<number>(b.length + 1).fill(0)
  for (const x of a) {
    const next = [0]
    for (const [j, y] of b.entries()) next.push(x === y ? row[j]! + 1 : Math.max(row[j + 1]!, next[j]!))
    row = next
  }
  return row[b.length]!
}

/** Whether `sub` appears in `list` in this order. */
const inOrder = (sub: readonly string[], list: readonly string[]) => {
  let at = 0
  for (const x of list) if (x === sub[at]) at++
  return at === sub.length
}

describe('checkLock: sections of equal order in another place', () => {
  const movedBetween = (was: string[], now: string[]) => {
    const sections = (list: string[]) => list.map((name) => ({ name, text: `${name}.`, order: 0 }))
    const lock = createLock(promptOf(sections(was)))
    return checkLock(promptOf(sections(now)), lock)
      .differences.filter((d) => d.kind === 'moved')
      .map((d) => d.section)
  }

  it('reports the one section taken from the front or the back, not the run that stayed in order', () => {
    expect(movedBetween(['x', 'y', 'z'], ['y', 'z', 'x'])).toEqual(['x'])
    expect(movedBetween(['x', 'y', 'z'], ['z', 'x', 'y'])).toEqual(['z'])
    expect(movedBetween(['a', 'b', 'c', 'd', 'e'], ['b', 'c', 'd', 'e', 'a'])).toEqual(['a'])
    expect(movedBetween(['a', 'b', 'c', 'd', 'e'], ['e', 'a', 'b', 'c', 'd'])).toEqual(['e'])
    expect(movedBetween(['a', 'b', 'c', 'd'], ['a', 'c', 'b', 'd'])).toHaveLength(1)
    // Two kept in order out of four, wherever they stand.
    expect(movedBetween(['a', 'b', 'c', 'd'], ['c', 'b', 'a', 'd'])).toEqual(['c', 'b'])
    expect(movedBetween(['a', 'b', 'c', 'd'], ['c', 'd', 'b', 'a'])).toEqual(['b', 'a'])
  })

  it('reports as moved just the sections outside a longest run kept in order (property)', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    const order = fc.shuffledSubarray(names, { minLength: 0, maxLength: names.length })
    fc.assert(
      fc.property(order, order, (was, now) => {
        const sections = (list: string[]) => list.map((name) => ({ name, text: `${name}.`, order: 0 }))
        const lock = createLock(promptOf(sections(was)))
        const differences = checkLock(promptOf(sections(now)), lock).differences
        const moved = differences.filter((d) => d.kind === 'moved').map((d) => d.section!)
        const common = now.filter((name) => was.includes(name))
        const kept = common.filter((name) => !moved.includes(name))
        expect(moved.length).toBe(common.length - lcsLength(was, now))
        expect(inOrder(kept, was)).toBe(true)
        expect(moved).toEqual(common.filter((name) => moved.includes(name)))
      }),
      { numRuns: propertyRuns(300) },
    )
  })
})
