import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { json, painter } from './output.js'
import { jsonText, safeStream, sanitizeProse, visible, writeExact } from './sanitize.js'

/** A stream that records what reaches it. */
function recorder(isTTY = false) {
  const stream = { text: '', isTTY, write: (t: string) => (stream.text += t) }
  return stream
}

/** What a terminal or a CI runner must never get from repository text. */
function unsafeCharacter(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x09 || c === 0x0a) continue
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return i
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return i
    if (c === 0x200e || c === 0x200f || c === 0x061c) return i
  }
  return -1
}

/** A line a CI runner would read as a command: `::` after white space, or `##[` / `##vso[` anywhere. */
function ciCommand(text: string): string | undefined {
  return text.split(/\r?\n/).find((line) => /^\s*::/.test(line) || /##[A-Za-z]*\[/.test(line))
}

/** The characters of `text` that print as themselves, in order. */
const printable = (text: string) => [...text].filter((ch) => unsafeCharacter(ch) === -1 && ch !== '\r')

/** Whether `small` appears in `big` in order, not necessarily together. */
function inOrder(small: readonly string[], big: string): boolean {
  const chars = [...big]
  let j = 0
  for (const ch of small) {
    while (j < chars.length && chars[j] !== ch) j++
    if (j === chars.length) return false
    j++
  }
  return true
}

/** Repository text as an attacker writes it: the characters that matter, mixed with any others. */
const hostile = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      ':',
      '::',
      '#',
      '##',
      '[',
      'v',
      ' ',
      '\u3000',
      '\n',
      '\r',
      '\t',
      '\u001b',
      '\u009b',
      '\u0085',
      '\u007f',
      '\u202e',
      '\u2066',
      '\u200f',
      '\u061c',
      'a',
    ),
    fc.string({ unit: 'binary', maxLength: 1 }),
  ),
  maxLength: 60,
})

describe('visible', () => {
  it('shows C0, DEL and C1 controls as escapes and bidirectional controls as marks', () => {
    expect(visible('copy\u001b]52;c;c2VjcmV0\u0007 done')).toBe('copy\\x1b]52;c;c2VjcmV0\\x07 done')
    expect(visible('erase\u001b[2K\u001b[1Aline')).toBe('erase\\x1b[2K\\x1b[1Aline')
    expect(visible('a\u009b31mb\u007f')).toBe('a\\u009b31mb\\x7f')
    expect(visible('x\u202Ey\u2066z\u200Ew\u061C')).toBe('x<U+202E>y<U+2066>z<U+200E>w<U+061C>')
  })

  it('keeps tab, newline and a carriage return before a newline, and nothing else changes', () => {
    expect(visible('a\tb\nc\r\nd')).toBe('a\tb\nc\r\nd')
    expect(visible('a\rb')).toBe('a\\x0db')
    expect(visible('a\r')).toBe('a\\x0d')
    expect(visible('héllo 👩‍💻 \u200B [x] #1')).toBe('héllo 👩‍💻 \u200B [x] #1')
  })

  it('breaks the older CI command form anywhere in a line', () => {
    expect(visible('see ##[add-mask]secret')).toBe('see ##\\[add-mask]secret')
    expect(visible('##vso[task.setvariable]x')).toBe('##vso\\[task.setvariable]x')
    expect(visible('## [a heading](x) and #[x]')).toBe('## [a heading](x) and #[x]')
  })
})

describe('sanitizeProse', () => {
  it('puts a backslash before `::` at the start of a line, after any white space', () => {
    expect(sanitizeProse('::error::pwned')).toBe('\\::error::pwned')
    expect(sanitizeProse('ok\n  ::add-mask::x\n\u3000::group::y')).toBe(
      'ok\n  \\::add-mask::x\n\u3000\\::group::y',
    )
    expect(sanitizeProse('a ::b:: and :x')).toBe('a ::b:: and :x')
  })

  it('leaves our own text alone', () => {
    const text = 'AGENTS.md:3:1: error: a secret [secret-pattern]\n2 errors, 0 warnings\n'
    expect(sanitizeProse(text)).toBe(text)
  })
})

describe('safeStream', () => {
  it('keeps its place between writes: a line written in pieces is judged whole', () => {
    const out = recorder()
    const stream = safeStream(out)
    for (const piece of ['x\n', '  ', ':', ':error::a\n', '#', '#', '[b', ']\n']) stream.write(piece)
    expect(out.text).toBe('x\n  \\::error::a\n##\\[b]\n')
    expect(ciCommand(out.text)).toBeUndefined()
  })

  it('turns our colour marks into SGR codes, and only those', () => {
    const out = recorder(true)
    const paint = painter(true)
    safeStream(out).write(`${paint('red', 'AGENTS.md\u001b[32m')} \u001b[2K\n`)
    expect(out.text).toBe('\u001b[31mAGENTS.md\\x1b[32m\u001b[39m \\x1b[2K\n')
  })

  it('does not take a mark without this process key for ours', () => {
    const out = recorder(true)
    const forged = painter(true)('red', 'x').replace(/[0-9a-f]{24}/g, '0'.repeat(24))
    safeStream(out).write(forged)
    expect(out.text).not.toContain('\u001b')
  })

  it('writes exactly what writeExact is given, and judges the next line afresh', () => {
    const out = recorder()
    const stream = safeStream(out)
    writeExact(stream, '\u001b]52;c;eA==\u0007\n::error::raw\n')
    stream.write('::x')
    expect(out.text).toBe('\u001b]52;c;eA==\u0007\n::error::raw\n\\::x')
    const plain = recorder()
    writeExact(plain, '\u001b')
    expect(plain.text).toBe('\u001b')
  })

  it('never lets a control, a bidirectional control or a CI command through, however the text is cut', () => {
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 6 }), (pieces) => {
        const out = recorder()
        const stream = safeStream(out)
        for (const piece of pieces) stream.write(piece)
        expect(unsafeCharacter(out.text)).toBe(-1)
        expect(ciCommand(out.text)).toBeUndefined()
        expect(inOrder(printable(pieces.join('')), out.text)).toBe(true)
      }),
      { numRuns: propertyRuns(500) },
    )
  })
})

describe('properties of prose', () => {
  it('holds every printable character of the input, in order, and nothing a terminal acts on', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string({ unit: 'binary' })), (text) => {
        for (const out of [visible(text), sanitizeProse(text)]) {
          expect(unsafeCharacter(out)).toBe(-1)
          expect(inOrder(printable(text), out)).toBe(true)
        }
        expect(ciCommand(sanitizeProse(text))).toBeUndefined()
      }),
      { numRuns: propertyRuns(1000) },
    )
  })

  it('is idempotent: sanitized text passes through again unchanged', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(visible(visible(text))).toBe(visible(text))
        expect(sanitizeProse(sanitizeProse(text))).toBe(sanitizeProse(text))
        expect(sanitizeProse(visible(text))).toBe(sanitizeProse(text))
      }),
      { numRuns: propertyRuns(500) },
    )
  })
})

describe('jsonText', () => {
  it('escapes C1, DEL, bidirectional controls and `##[` and keeps the exact value', () => {
    const value = { text: 'a\u009bb\u007f\u202E\u001b[2K ##[error]x', n: 1 }
    const text = jsonText(value)
    expect(text).toContain('a\\u009bb\\u007f\\u202e\\u001b[2K ##\\u005berror]x')
    expect(JSON.parse(text)).toEqual(value)
    expect(json(value)).toBe(`${text}\n`)
  })

  it('parses back to the value, and is already safe prose', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), hostile, fc.dictionary(hostile, hostile)), (value) => {
        const text = jsonText(value)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
        expect(sanitizeProse(text)).toBe(text)
        expect(unsafeCharacter(text)).toBe(-1)
      }),
      { numRuns: propertyRuns(500) },
    )
  })
})
