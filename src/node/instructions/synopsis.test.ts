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

  it('closes a fence only with a marker of its own kind at least as long, as CommonMark does', () => {
    const text =
      '````\n# in code\n```\n~~~~\n# still code\n````\n   # Heading, indented\n#not a heading\n####### seven\nprose\n'
    const pointer = (bytes: number) =>
      `[Synopsis: headings and first paragraph only. Read f.md (${bytes} bytes) for the rest.]`
    expect(synopsis(text, 'f.md')).toBe(
      `# Heading, indented\n#not a heading\n####### seven\nprose\n${pointer(Buffer.byteLength(text))}\n`,
    )
    const tilde = '~~~\n# code\n```\n# code too\n~~~\n## Out\n'
    expect(synopsis(tilde, 'f.md')).toBe(`## Out\n${pointer(Buffer.byteLength(tilde))}\n`)
  })

  it('drops a byte-order mark and CRLF front matter, and ends the paragraph at a fence or a heading', () => {
    const text = '\uFEFF---\r\na: 1\r\n---\r\nFirst\r\nsecond\r\n```\r\ncode\r\n```\r\nlater prose\r\n#\r\n'
    expect(synopsis(text, 'x.md')).toBe(
      `First\nsecond\n#\n[Synopsis: headings and first paragraph only. Read x.md (${Buffer.byteLength(text)} bytes) for the rest.]\n`,
    )
    expect(synopsis('One\n# H\nTwo\n', 'x.md').split('\n').slice(0, 2)).toEqual(['One', '# H'])
  })

  it('ends the first paragraph at a heading or a line of spaces, and keeps its lines as written', () => {
    const pointer = (text: string) =>
      `[Synopsis: headings and first paragraph only. Read f.md (${Buffer.byteLength(text)} bytes) for the rest.]`
    const heading = 'First\n# H\nnot the first paragraph\n'
    expect(synopsis(heading, 'f.md')).toBe(`First\n# H\n${pointer(heading)}\n`)
    const spaces = 'First\n  \t\nSecond paragraph\n## Later\n'
    expect(synopsis(spaces, 'f.md')).toBe(`First\n## Later\n${pointer(spaces)}\n`)
    // Only a mark at the very start and a CR ending a line are dropped; inside a line they stay.
    const inner = 'Keep \uFEFF this\rand\r\n'
    expect(synopsis(inner, 'f.md')).toBe(`Keep \uFEFF this\rand\n${pointer(inner)}\n`)
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
