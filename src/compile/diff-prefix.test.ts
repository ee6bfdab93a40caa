import { describe, expect, it } from 'vitest'
import { diffCompiled, prefixTokens, sectionAt } from './diff.js'
import { promptOf } from './fixtures.test-helper.js'
import type { CompiledPrompt, CompiledSection } from './types.js'

// The size of a cached prefix and the section a text index falls in: what
// `diff`, `inspect` and the usage report build their figures on.

/** A compiled prompt of sections with these token counts and spans, and `tokens` in all. */
function prompt(spans: [number, number, number][], tokens: number): CompiledPrompt {
  const sections = spans.map(([start, end, t], i) => ({ name: `s${i}`, start, end, tokens: t }))
  return { sections, tokens } as unknown as CompiledPrompt
}

describe('prefixTokens', () => {
  // Three sections of 10, 20 and 30 tokens; 66 in all, so each of the two separators is 3.
  const three = prompt(
    [
      [0, 10, 10],
      [12, 30, 20],
      [32, 60, 30],
    ],
    66,
  )

  it('adds the sections and the separators between them', () => {
    expect(prefixTokens(three, 1)).toBe(10)
    expect(prefixTokens(three, 2)).toBe(33)
    expect(prefixTokens(three, 3)).toBe(66)
  })

  it('is 0 for no section, and the whole prompt past the last', () => {
    expect(prefixTokens(three, 0)).toBe(0)
    expect(prefixTokens(three, -1)).toBe(0)
    expect(prefixTokens(three, 4)).toBe(66)
  })

  it('rounds a separator share that is not whole, and never counts a negative one', () => {
    expect(
      prefixTokens(
        prompt(
          [
            [0, 1, 1],
            [2, 3, 1],
            [4, 5, 1],
          ],
          6,
        ),
        2,
      ),
    ).toBe(4) // 1.5 per separator
    expect(
      prefixTokens(
        prompt(
          [
            [0, 1, 5],
            [2, 3, 5],
          ],
          9,
        ),
        2,
      ),
    ).toBe(10)
    expect(prefixTokens(prompt([[0, 1, 7]], 9), 1)).toBe(7)
  })
})

describe('sectionAt', () => {
  const sections = [
    { start: 0, end: 5 },
    { start: 7, end: 9 },
  ] as CompiledSection[]

  it('is the section holding the index, or the one after a separator', () => {
    expect(sectionAt(sections, 0)).toBe(0)
    expect(sectionAt(sections, 4)).toBe(0)
    expect(sectionAt(sections, 5)).toBe(1)
    expect(sectionAt(sections, 8)).toBe(1)
  })

  it('is -1 at or past the end of the text', () => {
    expect(sectionAt(sections, 9)).toBe(-1)
    expect(sectionAt([], 0)).toBe(-1)
  })
})

describe('diffCompiled: exact results', () => {
  const a = promptOf([
    { name: 'identity', text: 'You are an agent.' },
    { name: 'rules', text: 'Rule one.' },
    { name: 'gone', text: 'Old.' },
  ])

  it('names the first difference, its section, and the whole sections before it', () => {
    const b = promptOf([
      { name: 'identity', text: 'You are an agent.' },
      { name: 'rules', text: 'Rule two.' },
      { name: 'added', text: 'New.' },
    ])
    expect(diffCompiled(a, b)).toEqual({
      identical: false,
      firstDifference: 'You are an agent.\n\nRule '.length,
      section: 'rules',
      commonPrefixTokens: b.sections[0]!.tokens,
      added: ['added'],
      removed: ['gone'],
      changed: ['rules'],
    })
  })

  it('a prompt that is a prefix of the other: no section holds the difference', () => {
    const b = promptOf([
      { name: 'identity', text: 'You are an agent.' },
      { name: 'rules', text: 'Rule one.' },
    ])
    expect(diffCompiled(a, b)).toMatchObject({
      identical: false,
      firstDifference: b.text.length,
      section: null,
      commonPrefixTokens: b.tokens,
      removed: ['gone'],
    })
    expect(diffCompiled(b, a)).toMatchObject({ section: 'gone', added: ['gone'], removed: [] })
  })

  it('identical texts', () => {
    expect(diffCompiled(a, a)).toEqual({
      identical: true,
      firstDifference: null,
      section: null,
      commonPrefixTokens: a.tokens,
      added: [],
      removed: [],
      changed: [],
    })
  })
})
