import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { scanSecrets } from './secrets.js'
import { scanSpecialTokens } from './special-tokens.js'
import { locate } from './types.js'
import { scanUnicode } from './unicode.js'

const GITHUB = `ghp_${'a1B2c3D4e5'.repeat(3)}xyzXYZ`
const OPENAI = 'sk-proj-4fQ9zT2mLkP8vN3xR7wY1bC6'
const AWS = 'AKIAIOSFODNN7EXAMPLE'
const SLACK = 'xoxb-1234567890-abcdefABCDEF'
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----'

describe('scanSecrets', () => {
  it.each([
    ['an API key', OPENAI, 'sk-…'],
    ['a GitHub token', GITHUB, 'ghp_…'],
    ['an AWS access key id', AWS, 'AKIA…'],
    ['a Slack token', SLACK, 'xoxb-…'],
  ])('finds %s and shows only its prefix', (_, secret, prefix) => {
    const text = `token = "${secret}"\n`
    const hits = scanSecrets(text)
    expect(hits).toHaveLength(1)
    expect(hits[0]!.offset).toBe(text.indexOf(secret))
    expect(hits[0]!.message).toContain(prefix)
    expect(hits[0]!.message).not.toContain(secret.slice(prefix.length - 1, prefix.length + 6))
  })

  it('finds private key blocks', () => {
    const hits = scanSecrets(`key:\n${PEM}\n`)
    expect(hits.map((h) => h.code)).toEqual(['secret'])
    expect(hits[0]!.message).toContain('RSA PRIVATE KEY')
  })

  it('leaves placeholders and ordinary words alone', () => {
    const text = [
      'export OPENAI_API_KEY=sk-your-api-key-goes-here-please',
      'a disk-based-cache-with-1234567890-entries',
      'AKIA is a prefix; AKIAIOSFODNN7EXAMPLEX is too long',
      'sk-short1',
      '-----BEGIN PUBLIC KEY-----',
    ].join('\n')
    expect(scanSecrets(text)).toEqual([])
  })

  it('reads a long run of prefixes in one pass', () => {
    const text = 'sk-'.repeat(20_000)
    expect(scanSecrets(text).length).toBeLessThanOrEqual(1)
  })

  it('finds a key wherever it is put, never printing it', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        const text = `${before} ${GITHUB} ${after}`
        const hits = scanSecrets(text)
        const hit = hits.find((h) => h.offset === before.length + 1)
        expect(hit).toBeDefined()
        for (const h of hits) expect(h.message).not.toContain(GITHUB)
      }),
    )
  })
})

describe('scanSpecialTokens', () => {
  it('finds <|…|> tokens with their offsets', () => {
    const text = 'a <|endoftext|> b <|im_start|>system <|im_end|>'
    expect(scanSpecialTokens(text).map((h) => [h.offset, h.message.split(' ')[2]])).toEqual([
      [2, '<|endoftext|>'],
      [18, '<|im_start|>'],
      [37, '<|im_end|>'],
    ])
  })

  it('ignores text that is not a token', () => {
    expect(scanSpecialTokens('a <| b |> c <||> `x <|y` z|>')).toEqual([])
  })

  it('reports offsets inside the text and never throws', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('<', '|', '>', 'a', '_', ' ') }), (text) => {
        for (const hit of scanSpecialTokens(text)) {
          expect(text.startsWith('<|', hit.offset)).toBe(true)
        }
      }),
    )
  })
})

describe('scanUnicode', () => {
  it('reports bidirectional controls as errors and zero-width characters as warnings', () => {
    const hits = scanUnicode('a\u202Eb c\u200B\u200Bd')
    expect(hits.map((h) => [h.offset, h.severity, h.code])).toEqual([
      [1, 'error', 'bidi-control'],
      [5, 'warning', 'invisible-unicode'],
    ])
    expect(hits[1]!.message).toContain('2 × U+200B')
  })

  it('decodes hidden text in tag characters', () => {
    const hidden = [...'hi'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')
    const hits = scanUnicode(`ok${hidden}.`)
    expect(hits).toHaveLength(1)
    expect(hits[0]).toMatchObject({ offset: 2, severity: 'error', code: 'unicode-tags' })
    expect(hits[0]!.message).toContain('"hi"')
  })

  it('accepts a BOM at the start, emoji joiners and flag tag sequences', () => {
    const scotland = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'
    expect(scanUnicode(`\uFEFFhello 👩\u200D💻 ${scotland}`)).toEqual([])
    expect(scanUnicode('a\uFEFF').map((h) => h.offset)).toEqual([1])
  })

  it('never reports outside the text, whatever it holds', () => {
    const units = fc.constantFrom(
      'a',
      '\u200B',
      '\u202E',
      '\u2066',
      '\uFEFF',
      '\uDB40',
      '\uDC41',
      '\uD83D',
      '\u200D',
    )
    fc.assert(
      fc.property(fc.string({ unit: units }), (text) => {
        for (const hit of scanUnicode(text)) {
          expect(hit.offset).toBeGreaterThanOrEqual(0)
          expect(hit.offset).toBeLessThan(text.length)
        }
      }),
    )
  })
})

describe('locate', () => {
  it('gives 1-based lines and columns in the file, hits in order', () => {
    const text = 'one\r\ntwo\nthree <|x|>'
    const found = locate('f.md', text, [
      { offset: text.indexOf('<|'), severity: 'error', code: 'special-token', message: 'm' },
      { offset: 5, severity: 'warning', code: 'w', message: 'n' },
    ])
    expect(found.map((f) => [f.line, f.column])).toEqual([
      [2, 1],
      [3, 7],
    ])
  })
})
