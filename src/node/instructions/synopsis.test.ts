import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { synopsis } from './synopsis.js'

describe('synopsis', () => {
  it('keeps headings and the first paragraph, skipping front matter and fenced code', () => {
    const text =
      '---\ntitle: x\n---\nIntro line one\nintro line two\n\nSecond.\n# A\n```\n# code\n```\n## B\ntext\n'
    expect(synopsis(text, 'AGENTS.md')).toBe(
      `Intro line one\nintro line two\n# A\n## B\n[Synopsis: headings and first paragraph only. Read AGENTS.md (${Buffer.byteLength(text)} bytes) for the rest.]\n`,
    )
  })

  it('only ever keeps lines of the file, in order, then one pointer line', () => {
    const line = fc.oneof(
      fc.constantFrom('', '# Title', '## Sub', '```', '~~~', '---', 'prose', 'more prose'),
      fc.string({ maxLength: 12 }).filter((s) => !s.includes('\n')),
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), (lines) => {
        const out = synopsis(lines.join('\n'), 'f.md').split('\n')
        expect(out.pop()).toBe('')
        expect(out.pop()).toMatch(/^\[Synopsis: .* Read f\.md \(\d[\d ]* bytes\) for the rest\.\]$/)
        let at = 0
        for (const kept of out) {
          while (at < lines.length && lines[at]!.replace(/\r$/, '').trim() !== kept.trim()) at++
          expect(at).toBeLessThan(lines.length)
          at++
        }
      }),
    )
  })
})
