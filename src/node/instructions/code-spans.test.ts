import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../test/property-runs.test-helper.js'
import { blankCodeSpans, codeSpans } from './code-spans.js'
import { findClaudeImports } from './modes/claude-imports.js'
import { codeRegions, findGeminiImports } from './modes/gemini-imports.js'

/** The pattern the scanners used before: kept here only to compare with. */
function byOldPattern(text: string): [number, number][] {
  return [...text.matchAll(/(`+)[\s\S]*?\1/g)].map((m) => [m.index, m.index + m[0].length])
}

const shown = (text: string) => codeSpans(text).map(([s, e]) => text.slice(s, e))

describe('code spans', () => {
  it('closes a run with the next run of exactly its length', () => {
    expect(shown('a `b` c')).toEqual(['`b`'])
    expect(shown('`` a ` b `` then `c`')).toEqual(['`` a ` b ``', '`c`'])
    expect(shown('```a``b```')).toEqual(['```a``b```'])
  })

  it('leaves a run without a closer of its length as text and goes on after it', () => {
    // The old pattern closed ``` with part of a longer run or with a shorter one; CommonMark does not.
    expect(shown('``a```')).toEqual([])
    expect(shown('```a` `b`')).toEqual(['` `'])
    expect(shown('`` x `y`')).toEqual(['`y`'])
  })

  it('finds nothing in text without backticks, or in one run', () => {
    expect(codeSpans('')).toEqual([])
    expect(codeSpans('plain prose')).toEqual([])
    expect(codeSpans('`'.repeat(7))).toEqual([])
  })

  it('spans lines, as the Gemini scanner needs', () => {
    expect(shown('a `b\nc` d')).toEqual(['`b\nc`'])
  })

  it('blanks spans with spaces, keeping every offset', () => {
    expect(blankCodeSpans('a `@b` @c')).toBe('a      @c')
    expect(blankCodeSpans('none')).toBe('none')
  })

  it('agrees with the old pattern on ordinary Markdown (spans closed by a run of their own length)', () => {
    const prose = fc.stringMatching(/^[a-z @.\n]{1,8}$/)
    const span = fc
      .tuple(fc.integer({ min: 1, max: 4 }), fc.stringMatching(/^[a-z @.\n]{1,6}$/))
      .map(([n, inner]) => `${'`'.repeat(n)}${inner}${'`'.repeat(n)}`)
    const text = fc
      .array(fc.tuple(prose, span), { maxLength: 6 })
      .chain((parts) => prose.map((tail) => parts.map(([p, s]) => p + s).join('') + tail))
    fc.assert(
      fc.property(text, (t) => {
        expect(codeSpans(t)).toEqual(byOldPattern(t))
      }),
      { numRuns: propertyRuns(500) },
    )
  })

  it('returns ordered, disjoint spans that open and close with runs of one length, on any text', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[`a \n]{0,40}$/), (t) => {
        let end = -1
        for (const [s, e] of codeSpans(t)) {
          expect(s).toBeGreaterThan(end)
          const open = /^`+/.exec(t.slice(s))![0]
          const close = /`+$/.exec(t.slice(0, e))![0]
          expect(open.length).toBe(close.length)
          expect(t[s - 1]).not.toBe('`')
          expect(t[e]).not.toBe('`')
          end = e - 1
        }
      }),
      { numRuns: propertyRuns(500) },
    )
  })

  it('scans a long run of backticks followed by prose (the old pattern backtracked for minutes)', () => {
    const text = `x${'`'.repeat(50_000)}${'a'.repeat(50_000)} @after.md`
    expect(findClaudeImports(text)).toEqual(['after.md'])
    expect(codeRegions(text)).toEqual([])
    expect(findGeminiImports(text).map((r) => r.path)).toEqual(['after.md'])
  })
})
