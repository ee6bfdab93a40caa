import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { locate } from './types.js'
import { scanUnicode } from './unicode.js'

// Control characters in included text: a terminal that prints the file acts on them.

const controls = (text: string) => scanUnicode(text).filter((h) => h.code === 'control-character')

describe('control characters', () => {
  it('reports ESC, BEL, C1 and DEL as errors, one per run, at file:line:col', () => {
    const text = 'ok\nsee \u001b]52;c;eA==\u0007 and \u001b[2K\u001b[1A\n\u009b31m x\u007f\u007f\n'
    const found = locate('AGENTS.md', text, controls(text))
    expect(found.map((f) => [f.line, f.column, f.severity, f.message.split(':')[0]])).toEqual([
      [2, 5, 'error', 'control character U+001B ESC'],
      [2, 16, 'error', 'control character U+0007 BEL'],
      [2, 22, 'error', 'control character U+001B ESC'],
      [2, 26, 'error', 'control character U+001B ESC'],
      [3, 1, 'error', 'control character U+009B CSI'],
      [3, 7, 'error', 'control character 2 × U+007F DEL'],
    ])
    expect(found[0]!.message).toContain('a terminal reads what follows as a command')
    expect(found[0]!.message).toMatch(/; remove it$/)
  })

  it('accepts tab, line feed and CRLF line ends, but not a carriage return alone', () => {
    expect(controls('a\tb\r\nc\n')).toEqual([])
    const lone = controls('progress 10%\r\r\nprogress 99%')
    expect(lone).toHaveLength(1)
    expect(lone[0]).toMatchObject({ offset: 12, severity: 'error' })
    expect(lone[0]!.message).toContain('U+000D CR: not before a line feed')
  })

  it('finds every control character and nothing else', () => {
    const unit = fc.constantFrom(
      'a',
      ' ',
      '\t',
      '\n',
      '\r',
      '\u001b',
      '\u0000',
      '\u007f',
      '\u0085',
      '\u009f',
      'é',
    )
    fc.assert(
      fc.property(fc.string({ unit }), (text) => {
        const flagged: number[] = []
        for (const hit of controls(text)) {
          const count = Number(/(\d+) × /.exec(hit.message)?.[1] ?? 1)
          for (let k = 0; k < count; k++) flagged.push(hit.offset + k)
        }
        const expected: number[] = []
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i)
          const kept = c === 0x09 || c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a)
          if (!kept && (c < 0x20 || (c >= 0x7f && c <= 0x9f))) expected.push(i)
        }
        expect(flagged).toEqual(expected)
      }),
    )
  })
})
