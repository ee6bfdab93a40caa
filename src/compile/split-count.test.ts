import fc from 'fast-check'
import { countTokens as libraryO200k } from 'gpt-tokenizer/encoding/o200k_base'
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants'
import { describe, expect, it, vi } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { type BpeEncoding, SPLIT_LENGTH, splitCount } from './split-count.js'

// What `splitCount` asks of an encoding, checked against the rule of the
// module's doc, computed here from the encoding's own pre-tokens: a text
// with no pre-token longer than SPLIT_LENGTH is counted in one call; else
// each over-long pre-token is counted in pieces of at most SPLIT_LENGTH code
// units (a piece never ends on a high surrogate inside the pre-token) and
// the text between over-long pre-tokens in one call each.

const ENCODINGS = [
  ['o200k', O200K_TOKEN_SPLIT_REGEX],
  ['cl100k', CL100K_TOKEN_SPLIT_REGEX],
] as const

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff

function pieces(token: string): string[] {
  const out: string[] = []
  for (let start = 0; start < token.length; ) {
    let end = Math.min(start + SPLIT_LENGTH, token.length)
    if (end < token.length && isHigh(token.charCodeAt(end - 1))) end--
    out.push(token.slice(start, end))
    start = end
  }
  return out
}

/** The calls the rule above makes for `text`. */
function expectedCalls(regex: RegExp, text: string): string[] {
  const long = [...text.matchAll(new RegExp(regex.source, 'gu'))].filter((m) => m[0].length > SPLIT_LENGTH)
  if (long.length === 0) return [text]
  const calls: string[] = []
  let at = 0
  for (const m of long) {
    if (m.index > at) calls.push(text.slice(at, m.index))
    calls.push(...pieces(m[0]))
    at = m.index + m[0].length
  }
  if (at < text.length) calls.push(text.slice(at))
  return calls
}

/** A count for each call that tells the calls apart (so a lost or doubled call changes the total). */
const fakeCount = (text: string) => 1000 + text.length * 7 + (text.charCodeAt(0) || 0)

/** A fresh encoding (so its pre-tokenizer is read anew) recording each text it is asked to count. */
function spyEncoding(regex: RegExp) {
  const calls: string[] = []
  const encoding: BpeEncoding = {
    countTokens: (text, options) => {
      expect(options.disallowedSpecial.size).toBe(0)
      calls.push(text)
      return fakeCount(text)
    },
    splitRegex: regex,
  }
  return { encoding, calls }
}

function check(regex: RegExp, text: string): void {
  const { encoding, calls } = spyEncoding(regex)
  const total = splitCount(encoding, text)
  const expected = expectedCalls(regex, text)
  expect(calls, JSON.stringify(text.slice(0, 40))).toEqual(expected)
  expect(total).toBe(expected.reduce((n, call) => n + fakeCount(call), 0))
}

/**
 * Characters at every edge of what a unicode `\s` holds, and of the other
 * classes the pre-tokenizers tell apart (letters, digits, marks, slashes,
 * line breaks, surrogate pairs, private use), with their neighbours.
 */
const EDGES = [
  0x08, 0x09, 0x0a, 0x0d, 0x0e, 0x1f, 0x20, 0x21, 0x2d, 0x2e, 0x2f, 0x30, 0x37, 0x41, 0x61, 0x7f, 0x80, 0x9f,
  0xa0, 0xa1, 0x301, 0x4e2d, 0x167f, 0x1680, 0x1681, 0x1fff, 0x2000, 0x2005, 0x200a, 0x200b, 0x2027, 0x2028,
  0x2029, 0x202a, 0x202e, 0x202f, 0x2030, 0x205e, 0x205f, 0x2060, 0x2fff, 0x3000, 0x3001, 0xfefe, 0xfeff,
  0xff01, 0x10000, 0x1f600, 0x10fc00, 0x10ffff,
].map((c) => String.fromCodePoint(c))

/** Lengths (in repetitions) around half the split length, the split length and past it. */
const COUNTS = [1, 31, 32, 33, 62, 63, 64, 65, 66, 126, 127, 128, 129, 130, 200, 257, 300]

describe('splitCount', () => {
  it('counts a text of at most the split length, or with no long run, in one call', () => {
    for (const [, regex] of ENCODINGS) {
      for (const text of ['', 'a', 'x'.repeat(SPLIT_LENGTH), `${'ab '.repeat(100)}.`]) {
        const { encoding, calls } = spyEncoding(regex)
        expect(splitCount(encoding, text)).toBe(fakeCount(text))
        expect(calls).toEqual([text])
      }
    }
  })

  it('cuts pre-tokens of each length around the split length as the rule says, in each encoding', () => {
    for (const [, regex] of ENCODINGS) {
      for (const n of COUNTS) {
        for (const unit of ['x', '-', '0', ' ', '\n', '/', '😀', '中']) {
          const run = unit.repeat(n)
          check(regex, run)
          check(regex, `Before ${run} after.`)
          check(regex, `${run}\n${run}`)
        }
        // A run of exactly the length on either side of a short word.
        check(regex, `${'a'.repeat(n)} b ${'c'.repeat(SPLIT_LENGTH + 1)}`)
      }
    }
  })

  it('cuts runs of every edge character, alone and alternating with others, as the rule says', () => {
    for (const [, regex] of ENCODINGS) {
      for (const c of EDGES) {
        for (const n of [32, 33, 64, 65, 70, 130]) {
          check(regex, c.repeat(2 * n))
          for (const other of ['-', 'a', '/', ' ', '\n', '0']) {
            check(regex, (c + other).repeat(n))
            check(regex, `${other}${(c + other + other).repeat(n)}`)
          }
        }
      }
    }
  })

  it('cuts a long pre-token in one unit less rather than inside a surrogate pair, and keeps a lone high surrogate at its end', () => {
    for (const [, regex] of ENCODINGS) {
      for (const pair of ['\u{10000}', '\u{10fc00}', '\u{10ffff}', '😀']) {
        for (let lead = 0; lead < 4; lead++) {
          check(regex, `${'-'.repeat(lead)}${pair.repeat(150)}`)
          check(regex, `${'~'.repeat(SPLIT_LENGTH - 1 - lead)}${pair.repeat(3)}${'~'.repeat(lead)}`)
        }
      }
      // A lone high surrogate ends the pre-token: nothing is left to keep it from.
      check(regex, `${'-'.repeat(SPLIT_LENGTH + 5)}\ud800`)
      check(regex, `${'-'.repeat(2 * SPLIT_LENGTH - 1)}\udbff`)
      check(regex, `${'-'.repeat(SPLIT_LENGTH - 1)}\ud800x${'-'.repeat(SPLIT_LENGTH)}`)
    }
  })

  it('property: texts of runs of mixed characters are cut as the rule says', () => {
    const run = fc.tuple(
      fc.constantFrom(...EDGES, 'a', 'Z', '-', '/', ' ', '\n', '0', "'s"),
      fc.integer({ min: 1, max: 140 }),
    )
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 8 }), fc.boolean(), (runs, cl) => {
        const text = runs.map(([unit, n]) => unit.repeat(n)).join('')
        check(cl ? CL100K_TOKEN_SPLIT_REGEX : O200K_TOKEN_SPLIT_REGEX, text)
      }),
      { numRuns: propertyRuns(300) },
    )
  })

  it('scans from the start again after a count that threw midway', () => {
    const calls: string[] = []
    let fail = true
    const encoding: BpeEncoding = {
      countTokens: (text) => {
        if (fail) {
          fail = false
          throw new Error('adapter failed')
        }
        calls.push(text)
        return fakeCount(text)
      },
      splitRegex: O200K_TOKEN_SPLIT_REGEX,
    }
    const text = `head ${'-'.repeat(300)} tail`
    expect(() => splitCount(encoding, text)).toThrow('adapter failed')
    splitCount(encoding, text)
    expect(calls).toEqual(expectedCalls(O200K_TOKEN_SPLIT_REGEX, text))
  })

  it('pre-tokenizes no text that cannot hold a long pre-token: none of at most the split length, none without a long run', () => {
    // The text is scanned for pre-tokens only when it may hold one longer than SPLIT_LENGTH
    // (a run of half that of non-space characters, or of spaces and slashes); the scan is
    // observed through the encoding's pre-tokenizer, which a fresh encoding reads on first use.
    const short = [
      'x'.repeat(SPLIT_LENGTH),
      'x'.repeat(SPLIT_LENGTH - 28),
      `${'ab '.repeat(100)}.`,
      `${'word '.repeat(30)}${'x'.repeat(SPLIT_LENGTH / 2 - 1)}`,
      `${'x'.repeat(SPLIT_LENGTH / 2 - 1)} ${'word '.repeat(30)}`,
      `a${' '.repeat(SPLIT_LENGTH / 2 - 1)}b${'\n'.repeat(SPLIT_LENGTH / 2 - 1)}c${' /'.repeat(20)}.`,
      `a${'\u3000'.repeat(SPLIT_LENGTH / 2 - 1)}b${'\u2028'.repeat(SPLIT_LENGTH / 2 - 1)}c${'\u00a0x'.repeat(40)}`,
    ]
    for (const [, regex] of ENCODINGS) {
      for (const text of short) {
        let reads = 0
        const { encoding, calls } = spyEncoding(regex)
        Object.defineProperty(encoding, 'splitRegex', {
          get: () => {
            reads++
            return regex
          },
        })
        expect(splitCount(encoding, text)).toBe(fakeCount(text))
        expect(calls).toEqual([text])
        expect(reads, JSON.stringify(text.slice(0, 40))).toBe(0)
      }
    }
  })

  it("reads an encoding's pre-tokenizer once, however many texts it cuts", () => {
    let reads = 0
    const { encoding, calls } = spyEncoding(O200K_TOKEN_SPLIT_REGEX)
    Object.defineProperty(encoding, 'splitRegex', {
      get: () => {
        reads++
        return O200K_TOKEN_SPLIT_REGEX
      },
    })
    for (const text of [`a ${'-'.repeat(300)} b`, '-'.repeat(200), `${'x'.repeat(150)} y`]) {
      calls.length = 0
      splitCount(encoding, text)
      expect(calls).toEqual(expectedCalls(O200K_TOKEN_SPLIT_REGEX, text))
    }
    expect(reads).toBe(1)
  })

  it('steps past an empty match of a pre-tokenizer that can match nothing', () => {
    // The encodings' patterns always consume; any other may not, and the scan must still end.
    for (const regex of [/x*/gu, /y{200}|x*/gu, /(?:)/gu]) {
      for (const text of ['y'.repeat(300), `${'y'.repeat(250)} z ${'y'.repeat(90)}`]) check(regex, text)
    }
  })

  it('counts special-token text as text, whole or cut', async () => {
    // Loaded afresh: the options every count passes are made when the module loads.
    vi.resetModules()
    const fresh = await import('./split-count.js')
    const { O200K_TOKEN_SPLIT_REGEX: regex } = await import('gpt-tokenizer/encodingParams/constants')
    const encoding: BpeEncoding = { countTokens: libraryO200k, splitRegex: regex }
    const asText = { disallowedSpecial: new Set<string>() }
    const special = '<|endoftext|> and <|im_start|>'
    expect(fresh.splitCount(encoding, special)).toBe(libraryO200k(special, asText))
    const long = `${special} ${'-'.repeat(300)} ${special}`
    expect(fresh.splitCount(encoding, long)).toBe(
      expectedCalls(regex, long).reduce((n, call) => n + libraryO200k(call, asText), 0),
    )
  })
})
