import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants'
import tokenizerPackage from 'gpt-tokenizer/package.json' with { type: 'json' }
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkedFile } from './code-cache.js'
import { decodeRankTable, encodeRankTable, NONE, pairRank, tableEncoding, textRank } from './rank-table.js'
import { rankTableFile, readRankTable } from './rank-table-file.js'
import { rankTableEncoding } from './tokenizer-loaders.js'

// A rank table is used only when it is the one the build wrote for the
// installed gpt-tokenizer: anything else is refused, and the encoding then
// loads from gpt-tokenizer itself.

const asText = { disallowedSpecial: new Set<string>() }
const version = tokenizerPackage.version
let dir: string
let payload: Uint8Array
let good: Buffer
const file = () => join(dir, 'cl100k_base.bin')

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sysprompt-rank-table-'))
  payload = encodeRankTable(cl100kRanks)
  good = rankTableFile('cl100k_base', version, CL100K_TOKEN_SPLIT_REGEX, payload)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('rank table files', () => {
  it('a table the build wrote reads back and counts as gpt-tokenizer counts', async () => {
    await writeFile(file(), good)
    // The header line is padded so that the words of the payload can be read where they lie.
    expect((good.indexOf(10) + 1) % 8).toBe(0)
    const read = readRankTable(file(), 'cl100k_base', version)
    expect(read?.table.tokens).toBe(cl100kRanks.length)
    // gpt-tokenizer's own pre-tokenizer, carried in the header: a cold count loads none of its modules.
    expect(read?.splitRegex.source).toBe(CL100K_TOKEN_SPLIT_REGEX.source)
    expect(read?.splitRegex.flags).toBe('gu')
    const encoding = rankTableEncoding('cl100k', dir)
    for (const text of [
      'hello world',
      '<|endoftext|> and <|im_start|>',
      'ünïcödé 日本語 🎉',
      'x'.repeat(500),
    ])
      expect(encoding?.countTokens(text, asText), text).toBe(cl100kCount(text, asText))
  })

  it('a damaged, truncated, foreign or malformed table is refused, and the loader has none to offer', async () => {
    const newline = good.indexOf(10)
    const header = JSON.parse(good.subarray(0, newline).toString('utf8')) as Record<string, string>
    const withHeader = (changes: Record<string, string>) => checkedFile({ ...header, ...changes }, payload)
    const flipped = Buffer.from(good)
    flipped[flipped.length - 5]! ^= 0x01
    /** The payload with one of its four head words (tokens, slots, byte length, layout) changed. */
    const withWord = (index: number, value: (word: number) => number): Uint8Array => {
      const copy = Uint8Array.from(payload)
      const head = new Uint32Array(copy.buffer, 0, 4)
      head[index] = value(head[index]!)
      return copy
    }
    const refused: [string, Buffer][] = [
      ['a flipped byte', flipped],
      ['truncated', good.subarray(0, good.length - 4096)],
      ['the header only', good.subarray(0, newline + 1)],
      ['empty', Buffer.alloc(0)],
      ['no header', Buffer.from(payload)],
      ['another gpt-tokenizer', withHeader({ tokenizer: 'gpt-tokenizer@3.9.9' })],
      ['another encoding', withHeader({ encoding: 'o200k_base' })],
      ['another format', withHeader({ format: 'sysprompt-rank-table/0' })],
      ['the other byte order', withHeader({ endian: header.endian === 'LE' ? 'BE' : 'LE' })],
      ['a code cache file', checkedFile({ format: 'sysprompt-v8-code-cache/1' }, payload)],
      ['a JSON null header', Buffer.concat([Buffer.from('null\n'), payload])],
      [
        'no pre-tokenizer',
        checkedFile({ ...header, split: undefined } as unknown as Record<string, string>, payload),
      ],
      ['a pre-tokenizer that is not a pattern', withHeader({ split: '(' })],
      ['a header field that is not a string', withHeader({ extra: 1 as unknown as string })],
      // Valid checked files whose payload is not a table of this layout.
      [
        'another layout',
        checkedFile(
          header,
          withWord(3, () => 2),
        ),
      ],
      [
        'sizes that disagree',
        checkedFile(
          header,
          withWord(2, (n) => n + 4),
        ),
      ],
      ['a payload cut short', checkedFile(header, payload.subarray(0, payload.length - 8))],
      [
        'an index that is not a power of two',
        checkedFile(
          header,
          withWord(1, (n) => n - 1),
        ),
      ],
      [
        'an index too small for its ranks',
        checkedFile(
          header,
          withWord(0, (n) => n * 4),
        ),
      ],
    ]
    for (const [what, bytes] of refused) {
      await writeFile(file(), bytes)
      expect(readRankTable(file(), 'cl100k_base', version), what).toBeUndefined()
      expect(rankTableEncoding('cl100k', dir), what).toBeUndefined()
    }
    await rm(file())
    expect(rankTableEncoding('cl100k', dir)).toBeUndefined()
  })

  it('is never read through a link', async () => {
    const elsewhere = join(dir, 'elsewhere.bin')
    await writeFile(elsewhere, good)
    await rm(file(), { force: true })
    await symlink(elsewhere, file())
    expect(readRankTable(file(), 'cl100k_base', version)).toBeUndefined()
    expect((await readFile(elsewhere)).equals(good)).toBe(true)
    await rm(file())
  })
})

describe('rank table lookups', () => {
  /** Every byte a rank, as gpt-tokenizer's tables have them: ASCII as strings, the others as bytes. */
  const bytesAlone = Array.from({ length: 256 }, (_, b) => (b < 0x80 ? String.fromCharCode(b) : [b]))
  const extra = ['ab', [0xe2, 0x80], 'ü', [0xef, 0xbb, 0xbf, 0x61, 0x62]]
  const table = decodeRankTable(encodeRankTable([...bytesAlone, ...extra]))!
  const bytes = (...b: number[]) => Uint8Array.from(b)
  const look = (f: typeof pairRank, b: Uint8Array) => f(table, b, 0, b.length)

  it('find a whole pre-token only among the ranks gpt-tokenizer holds as strings', () => {
    expect(look(textRank, bytes(0x61, 0x62))).toBe(256)
    expect(look(textRank, bytes(0xc3, 0xbc))).toBe(258)
    expect(look(textRank, bytes(0xe2, 0x80))).toBe(NONE)
    expect(look(textRank, bytes(0xef, 0xbb, 0xbf, 0x61, 0x62))).toBe(NONE)
    expect(look(textRank, bytes(0x62, 0x61))).toBe(NONE)
  })

  it('find a merge part as gpt-tokenizer does: UTF-8 as a string less one byte order mark, other bytes as bytes', () => {
    expect(look(pairRank, bytes(0xe2, 0x80))).toBe(257)
    // The byte-order-marked rank is never found as itself: its bytes decode to "ab".
    expect(look(pairRank, bytes(0xef, 0xbb, 0xbf, 0x61, 0x62))).toBe(256)
    expect(look(pairRank, bytes(0xef, 0xbb, 0xbf))).toBe(NONE)
    // Not UTF-8 (an overlong form, a surrogate, a cut sequence): looked up as bytes, which no string rank is.
    expect(look(pairRank, bytes(0xc1, 0x81))).toBe(NONE)
    expect(look(pairRank, bytes(0xed, 0xa0, 0x80))).toBe(NONE)
    expect(look(pairRank, bytes(0xc3, 0x61))).toBe(NONE)
  })

  it('a table whose index has no empty slot still ends a miss', () => {
    const full = decodeRankTable(encodeRankTable(bytesAlone))!
    full.slots.fill(1)
    expect(pairRank(full, bytes(0x7a), 0, 1)).toBe(NONE)
    expect(tableEncoding(full, /.+/gu).countTokens('zz', asText)).toBe(2)
  })

  it('the build refuses ranks that repeat bytes or leave a byte without a rank', () => {
    expect(() => encodeRankTable([...bytesAlone, [0x61]])).toThrow(/repeats/)
    expect(() => encodeRankTable(bytesAlone.slice(1))).toThrow(/byte 0 has no rank/)
  })
})
