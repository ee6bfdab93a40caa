import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../test/property-runs.test-helper.js'
import { harnessName, matchesAroundMarks, withheldMark, withheldWords } from './withheld.js'

describe('withheld words and marks', () => {
  it('say why and which harness would send it; sysprompt mode only says it was not read', () => {
    expect(withheldWords('claude', 'links to .env, a denied file')).toBe(
      'withheld: links to .env, a denied file; Claude Code would send it',
    )
    expect(withheldMark('gemini', 'x')).toBe('[withheld: x; Gemini CLI would send it]')
    expect(withheldWords('sysprompt', 'links to .env, a denied file')).toBe(
      'not read: links to .env, a denied file',
    )
    expect(harnessName('sysprompt')).toBeUndefined()
    expect(harnessName('codex')).toBe('Codex CLI')
  })
})

describe('matchesAroundMarks', () => {
  const mark = '[withheld: links to .env, a denied file; Claude Code would send it]'

  it('is plain equality without a mark', () => {
    expect(matchesAroundMarks('abc', [], 'abc')).toBe(true)
    expect(matchesAroundMarks('abc', [mark], 'abd')).toBe(false)
  })

  it('lets each mark stand for any text, the rest compared exactly', () => {
    const view = `Contents of /r/CLAUDE.md (project):\n\n${mark}\n\nContents of /r/b.md:\n\n${mark}\n</x>`
    expect(
      matchesAroundMarks(
        view,
        [mark],
        'Contents of /r/CLAUDE.md (project):\n\nKEY=1\n\nContents of /r/b.md:\n\n\n</x>',
      ),
    ).toBe(true)
    expect(
      matchesAroundMarks(
        view,
        [mark],
        'Contents of /r/CLAUDE.md (project):\n\nKEY=1\n\nContents of /r/c.md:\n\nz\n</x>',
      ),
    ).toBe(false)
    expect(matchesAroundMarks(`a${mark}b`, [mark], 'ab')).toBe(true)
    expect(matchesAroundMarks(`ab${mark}b`, [mark], 'ab')).toBe(false)
  })

  it('accepts any text put where the marks stand, and refuses a change to the text around them', () => {
    const piece = fc.string({ maxLength: 12 }).filter((s) => !s.includes('['))
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 5 }),
        fc.array(fc.string({ maxLength: 12 }), { minLength: 4, maxLength: 4 }),
        fc.nat(),
        (pieces, fills, at) => {
          const view = pieces.join(mark)
          const recorded = pieces.map((p, i) => (i === 0 ? p : `${fills[i - 1]}${p}`)).join('')
          expect(matchesAroundMarks(view, [mark], recorded)).toBe(true)
          // A character more before the first piece or after the last is a mismatch, unless a mark stands there.
          const edge = at % 2 === 0
          const changed = edge ? `\u0000${recorded}` : `${recorded}\u0000`
          const outer = edge ? pieces[0]! : pieces[pieces.length - 1]!
          if (pieces.length === 1 || outer.length > 0)
            expect(matchesAroundMarks(view, [mark], changed)).toBe(false)
        },
      ),
      { numRuns: propertyRuns(300) },
    )
  })
})
