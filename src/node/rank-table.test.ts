import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base'
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base'
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants'
import { describe, expect, it } from 'vitest'
import { type BpeEncoding, SPLIT_LENGTH, splitCount } from '../compile/split-count.js'
import { type BpeRanks, decodeRankTable, encodeRankTable, tableEncoding } from './rank-table.js'

// The counter over the compact table must count exactly as gpt-tokenizer
// counts (`countTokens(text, { disallowedSpecial: new Set() })`), for both
// encodings, on any text: the counts are keyed by gpt-tokenizer's version in
// the persistent cache, and `TOKENIZER_VERSION` did not change.

const asText = { disallowedSpecial: new Set<string>() }
const root = join(import.meta.dirname, '..', '..')

interface Case {
  name: string
  ranks: BpeRanks
  ours: BpeEncoding
  theirs: BpeEncoding
}

function makeCase(name: string, ranks: BpeRanks, regex: RegExp, count: BpeEncoding['countTokens']): Case {
  const table = decodeRankTable(encodeRankTable(ranks))
  if (table === undefined) throw new Error(`${name}: the table does not read back`)
  return { name, ranks, ours: tableEncoding(table, regex), theirs: { countTokens: count, splitRegex: regex } }
}

const cases: Case[] = [
  makeCase('o200k', o200kRanks, O200K_TOKEN_SPLIT_REGEX, o200kCount),
  makeCase('cl100k', cl100kRanks, CL100K_TOKEN_SPLIT_REGEX, cl100kCount),
]

/** The text of a rank: its string, or its bytes decoded (a byte rank that is not UTF-8 decodes with U+FFFD). */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
const rankText = (ranks: BpeRanks, rank: number): string => {
  const value = ranks[rank]
  return value === undefined ? '' : typeof value === 'string' ? value : decoder.decode(Uint8Array.from(value))
}

/** Characters that exercise both pre-tokenizers: letters of every case class, marks, digits, spaces, line breaks, slashes, contractions, a byte order mark, lone surrogates. */
const tricky = fc.constantFrom(
  ...[
    'a',
    'Z',
    'ǅ',
    'ʰ',
    'ß',
    '中',
    'é',
    '\u0301',
    '1',
    '٣',
    ' ',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\r',
    '/',
    "'",
    "'s",
    "'LL",
  ],
  ...[
    '!',
    '?!',
    '<|endoftext|>',
    '<|im_start|>',
    '\u00a0',
    '\u3000',
    '\ufeff',
    '😀',
    '👩‍💻',
    '\ud800',
    '\udfff',
    '\u0000',
  ],
)

const equal = (c: Case, text: string): void => {
  expect(c.ours.countTokens(text, asText), JSON.stringify(text)).toBe(c.theirs.countTokens(text, asText))
}

describe.each(cases)('the $name table counts as gpt-tokenizer counts', (c) => {
  it('every rank alone; every fifth after a space, every 50th after a byte order mark', () => {
    for (let rank = 0; rank < c.ranks.length; rank++) {
      const text = rankText(c.ranks, rank)
      // gpt-tokenizer decodes every byte-order-marked part it looks up: its side of that variant is slow.
      const variants = [
        text,
        ...(rank % 5 === 0 ? [` ${text}`] : []),
        ...(rank % 50 === 0 ? [`\ufeff${text}`] : []),
      ]
      for (const variant of variants) {
        const ours = c.ours.countTokens(variant, asText)
        // One expect per mismatch only: 600 000 expects would cost more than the counting.
        if (ours !== c.theirs.countTokens(variant, asText)) equal(c, variant)
      }
    }
  })

  it('a byte order mark before what a byte rank starting inside one continues', () => {
    // gpt-tokenizer drops a byte order mark from a merge part it decodes: "\ufeff名" merges
    // through EF BB + BF E5 90 8D, a part it looks up as "名". Every such continuation, found in the ranks.
    const fatal = new TextDecoder('utf-8', { fatal: true })
    const texts: string[] = []
    for (const value of c.ranks) {
      if (typeof value === 'string' || value === undefined) continue
      const rest =
        value[0] === 0xbf ? value.slice(1) : value[0] === 0xbb && value[1] === 0xbf ? value.slice(2) : []
      try {
        if (rest.length > 0) texts.push(fatal.decode(Uint8Array.from(rest)))
      } catch {
        // not a character after the mark: no text has these bytes there
      }
    }
    for (const text of texts)
      for (const before of ['\ufeff', ' \ufeff', 'a\ufeff']) equal(c, `${before}${text}`)
  })

  it('arbitrary Unicode (code points, and code units with lone surrogates)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc.string({
            unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
            maxLength: 200,
          }),
          fc.string({ unit: tricky, maxLength: 120 }),
        ),
        (text) => equal(c, text),
      ),
    )
  })

  it('pre-tokens longer than the split length, counted whole and through the splitting', () => {
    const solid = fc.constantFrom(
      'a',
      'B',
      'é',
      '中',
      '😀',
      '1',
      '!',
      '/',
      '\ufeff',
      '\u0301',
      '\ud800',
      ' ',
      '\n',
    )
    fc.assert(
      fc.property(
        fc.string({ unit: solid, minLength: SPLIT_LENGTH + 1, maxLength: 4 * SPLIT_LENGTH }),
        (text) => {
          equal(c, text)
          expect(splitCount(c.ours, text)).toBe(splitCount(c.theirs, text))
        },
      ),
      { numRuns: 50 },
    )
  })

  it('text built from real tokens, with separators and byte order marks between them', () => {
    const token = fc.nat(c.ranks.length - 1).map((rank) => rankText(c.ranks, rank))
    const glue = fc.constantFrom('', '', '', ' ', '\n', '\ufeff', '\ud83d')
    fc.assert(
      fc.property(fc.array(fc.tuple(token, glue), { maxLength: 40 }), (parts) =>
        equal(c, parts.map(([t, g]) => t + g).join('')),
      ),
    )
  })

  it('the sample project and the fixtures’ instruction files', () => {
    const files: string[] = []
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry)
        if (statSync(path).isDirectory()) walk(path)
        else if (/\.(md|mdc|txt|json|ya?ml|toml)$|^[A-Z]+$/.test(entry)) files.push(path)
      }
    }
    for (const dir of ['examples/sample-project', 'src/cli/lint/fixtures', 'test/fixtures', 'presets'])
      walk(join(root, dir))
    expect(files.length).toBeGreaterThan(20)
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      equal(c, text)
      expect(splitCount(c.ours, text), file).toBe(splitCount(c.theirs, text))
    }
  })
})
