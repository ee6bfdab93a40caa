/**
 * A compact BPE rank table, looked up where it lies, and a token counter over it.
 *
 * Why by hand: gpt-tokenizer (whose ranks these are, and whose counts these
 * must equal) offers no lookup that avoids building its table; loading an
 * encoding creates 200 000 strings from a 2.4 MB module and fills a
 * 200 000-entry `Map`, some 400 ms of a cold `inspect` that counts a few
 * kilobytes. The same ranks written once (by `npm run build`, from
 * gpt-tokenizer's own table) as three typed arrays are read in one file
 * read and counted from at once: no per-token string, no `Map`.
 *
 * The layout of a payload (little-endian 32-bit words, then bytes):
 *
 * - 4 words: `tokens` (ranks 0 … tokens − 1), `slots` (a power of two),
 *   `byteLength`, `version` ({@link LAYOUT});
 * - `offsets`, tokens + 1 words: rank r's bytes are
 *   `bytes[offsets[r] … offsets[r + 1])` (an unused rank has none);
 * - `slots` words: an open-addressing hash index (FNV-1a of the bytes,
 *   linear probing), each slot 0 or a rank + 1, plus {@link RAW} when
 *   gpt-tokenizer holds that rank as bytes rather than as a string;
 * - `bytes`: every rank's bytes, concatenated in rank order.
 *
 * Nothing here imports `node:*`; the file's header and its checks live in
 * `rank-table-file.ts`.
 */
import type { BpeEncoding } from '../compile/index.js'

/** The payload layout's version: a table of another layout is refused. */
export const LAYOUT = 1
const HEAD_WORDS = 4
/** No rank (what the lookups return for a byte string no rank has): larger than every rank, which are below 2³¹. */
export const NONE = 0xffffffff
/**
 * The flag of a slot whose rank gpt-tokenizer holds as bytes (a byte string
 * that is not UTF-8, or UTF-8 that starts with a byte order mark); the
 * others it holds as strings, and it looks the two kinds up differently
 * (see {@link pairRank}).
 */
const RAW = 0x80000000

/** A rank table over one payload (views, not copies). */
export interface RankTable {
  readonly tokens: number
  readonly offsets: Uint32Array
  readonly slots: Uint32Array
  readonly bytes: Uint8Array
}

/** The ranks as gpt-tokenizer's `bpeRanks/<encoding>` modules hold them: a string (its UTF-8 bytes) or the bytes themselves. */
export type BpeRanks = readonly (string | readonly number[] | undefined)[]

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193)
  // FNV's low bits mix poorly for short keys; fold the high ones in.
  return (h ^ (h >>> 15)) >>> 0
}

/** Whether rank `rank`'s bytes equal `bytes[start … end)`. */
function sameBytes(table: RankTable, rank: number, bytes: Uint8Array, start: number, end: number): boolean {
  const from = table.offsets[rank]!
  if (table.offsets[rank + 1]! - from !== end - start) return false
  for (let i = start, j = from; i < end; i++, j++) if (bytes[i] !== table.bytes[j]) return false
  return true
}

/** The slot entry (rank + 1, maybe with {@link RAW}) of the rank whose bytes are `bytes[start … end)`, or 0 when none has them. */
function entryOf(table: RankTable, bytes: Uint8Array, start: number, end: number): number {
  const mask = table.slots.length - 1
  // At most one round of the index: a table with no empty slot (the build never writes one) still ends a miss.
  for (
    let slot = hashBytes(bytes, start, end) & mask, probes = 0;
    probes <= mask;
    slot = (slot + 1) & mask, probes++
  ) {
    const entry = table.slots[slot]!
    if (entry === 0 || sameBytes(table, (entry & ~RAW) - 1, bytes, start, end)) return entry
  }
  return 0
}

/** The rank a whole pre-token's UTF-8 bytes have as gpt-tokenizer looks them up (by string: only ranks it holds as strings), or {@link NONE}. */
export function textRank(table: RankTable, bytes: Uint8Array, start: number, end: number): number {
  const entry = entryOf(table, bytes, start, end)
  return entry === 0 || (entry & RAW) !== 0 ? NONE : entry - 1
}

/** Whether `bytes[start … end)` is well-formed UTF-8, by the rules of gpt-tokenizer's `isValidUTF8`. */
function validUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; ) {
    const b = bytes[i]!
    if (b < 0x80) {
      i++
      continue
    }
    // The sequence's length by its lead byte (C0, C1 and F5 … FF lead none).
    const n = b >= 0xc2 && b <= 0xdf ? 2 : (b & 0xf0) === 0xe0 ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0
    if (n === 0) return false
    let cp = b & (0x7f >> n)
    if (i + n > end) return false
    for (let j = 1; j < n; j++) {
      const c = bytes[i + j]!
      if ((c & 0xc0) !== 0x80) return false
      cp = (cp << 6) | (c & 0x3f)
    }
    if (
      (n === 3 && cp < 0x800) ||
      (n === 4 && cp < 0x10000) ||
      (cp >= 0xd800 && cp <= 0xdfff) ||
      cp > 0x10ffff
    )
      return false
    i += n
  }
  return true
}

/**
 * The rank of a part of a merge, `bytes[start … end)`, as gpt-tokenizer's
 * `getBpeRankFromBytes` finds it, or {@link NONE}: well-formed UTF-8 is
 * decoded to a string (its decoder drops one leading byte order mark) and
 * looked up among the string ranks; other bytes among the byte ranks.
 */
export function pairRank(table: RankTable, bytes: Uint8Array, start: number, end: number): number {
  if (!validUtf8(bytes, start, end)) {
    const entry = entryOf(table, bytes, start, end)
    return (entry & RAW) === 0 ? NONE : (entry & ~RAW) - 1
  }
  if (end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf)
    start += 3
  return start === end ? NONE : textRank(table, bytes, start, end)
}

/**
 * The payload of a table holding `ranks` (build time: `scripts/build-rank-tables.ts`).
 * Throws when two ranks have the same bytes or a byte has no rank, which
 * gpt-tokenizer's tables never have: a lookup by bytes must have one
 * answer, and every byte string must be countable.
 */
export function encodeRankTable(ranks: BpeRanks): Uint8Array {
  const encoder = new TextEncoder()
  const tokens = ranks.length
  const parts = ranks.map((value) =>
    value === undefined
      ? new Uint8Array(0)
      : typeof value === 'string'
        ? encoder.encode(value)
        : Uint8Array.from(value),
  )
  const byteLength = parts.reduce((n, p) => n + p.length, 0)
  let slots = 1
  while (slots < tokens * 2) slots *= 2 // load factor at most ½: a miss ends within a few probes
  const words = HEAD_WORDS + tokens + 1 + slots
  const payload = new Uint8Array(words * 4 + byteLength)
  const view = new Uint32Array(payload.buffer, 0, words)
  view.set([tokens, slots, byteLength, LAYOUT])
  const table: RankTable = {
    tokens,
    offsets: view.subarray(HEAD_WORDS, HEAD_WORDS + tokens + 1),
    slots: view.subarray(HEAD_WORDS + tokens + 1),
    bytes: payload.subarray(words * 4),
  }
  let at = 0
  parts.forEach((part, rank) => {
    table.offsets[rank] = at
    table.bytes.set(part, at)
    at += part.length
  })
  table.offsets[tokens] = at
  parts.forEach((part, rank) => {
    if (part.length === 0) return
    if (entryOf(table, part, 0, part.length) !== 0)
      throw new Error(`rank ${rank} repeats an earlier rank's bytes`)
    let slot = hashBytes(part, 0, part.length) & (slots - 1)
    while (table.slots[slot] !== 0) slot = (slot + 1) & (slots - 1)
    table.slots[slot] = (rank + 1) | (typeof ranks[rank] === 'string' ? 0 : RAW)
  })
  for (let b = 0; b < 256; b++)
    if (pairRank(table, Uint8Array.of(b), 0, 1) === NONE) throw new Error(`byte ${b} has no rank`)
  return payload
}

/**
 * The table a payload holds, or `undefined` when the payload is not one
 * (another layout, sizes that disagree with each other or with the
 * payload's length). `payload` must start on a 4-byte boundary of its
 * buffer. The words are not checked one by one (that would cost a cold
 * start some 10 ms): the file's sha256 has already shown it is the one
 * the build wrote, and a lookup through a wrong offset or slot can only
 * miss (a typed array read out of range gives `undefined`, never another
 * value), never read outside the payload or loop forever.
 */
export function decodeRankTable(payload: Uint8Array): RankTable | undefined {
  if (payload.byteOffset % 4 !== 0 || payload.length < HEAD_WORDS * 4) return undefined
  const [tokens = 0, slots = 0, byteLength = 0, layout] = new Uint32Array(
    payload.buffer,
    payload.byteOffset,
    HEAD_WORDS,
  )
  const words = HEAD_WORDS + tokens + 1 + slots
  if (layout !== LAYOUT || slots < 2 || (slots & (slots - 1)) !== 0 || slots < tokens * 2) return undefined
  if (payload.length !== words * 4 + byteLength) return undefined
  const view = new Uint32Array(payload.buffer, payload.byteOffset, words)
  const table: RankTable = {
    tokens,
    offsets: view.subarray(HEAD_WORDS, HEAD_WORDS + tokens + 1),
    slots: view.subarray(HEAD_WORDS + tokens + 1),
    bytes: payload.subarray(words * 4),
  }
  return table.offsets[0] === 0 && table.offsets[tokens] === byteLength ? table : undefined
}

/** Scratch space of the merge, grown to the longest piece seen. */
let starts = new Uint32Array(256)
let pairRanks = new Uint32Array(256)

/**
 * The number of tokens the byte-pair merge of `bytes[0 … length)` gives,
 * as gpt-tokenizer's `bytePairMerge` merges: repeatedly the adjacent pair
 * of lowest rank, the leftmost of equal ones, until no pair has a rank.
 */
function mergeCount(table: RankTable, bytes: Uint8Array, length: number): number {
  if (starts.length <= length) {
    starts = new Uint32Array(length * 2)
    pairRanks = new Uint32Array(length * 2)
  }
  // Parts i are bytes[starts[i] … starts[i + 1]); pairRanks[i] is the rank of parts i and i + 1 joined.
  let parts = length
  for (let i = 0; i <= length; i++) starts[i] = i
  for (let i = 0; i + 1 < length; i++) pairRanks[i] = pairRank(table, bytes, i, i + 2)
  pairRanks[length - 1] = NONE
  const joinedRank = (i: number): number =>
    i + 2 <= parts ? pairRank(table, bytes, starts[i]!, starts[i + 2]!) : NONE
  while (parts > 1) {
    let lowest = NONE
    let at = -1
    for (let i = 0; i + 1 < parts; i++) {
      if (pairRanks[i]! < lowest) {
        lowest = pairRanks[i]!
        at = i
      }
    }
    if (at < 0) break
    // Parts `at` and `at + 1` become one.
    starts.copyWithin(at + 1, at + 2, parts + 1)
    pairRanks.copyWithin(at, at + 1, parts)
    parts--
    pairRanks[at] = joinedRank(at)
    if (at > 0) pairRanks[at - 1] = joinedRank(at - 1)
  }
  return parts
}

/** Whether `text` has no lone surrogate (what `String.prototype.isWellFormed` says; ES2024, past our `lib`). */
function wellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0xd800 || c > 0xdfff) continue
    if (c > 0xdbff) return false
    const next = text.charCodeAt(i + 1)
    if (!(next >= 0xdc00 && next <= 0xdfff)) return false
    i++
  }
  return true
}

/** Pieces counted, kept until there are this many (then the memo starts afresh): words repeat, and a hit saves the merge. */
const PIECE_MEMO = 4096

/**
 * An encoding that counts over `table` with the pre-tokenizer `splitRegex`,
 * giving gpt-tokenizer's `countTokens(text, { disallowedSpecial: new Set() })`
 * for every text: each pre-token counts 1 when it is a rank as a whole,
 * else the length of its byte-pair merge. gpt-tokenizer looks a whole
 * pre-token up by its string, which no rank has when the pre-token holds a
 * lone surrogate; it then merges the pre-token's UTF-8 bytes (a lone
 * surrogate encoded as U+FFFD, as `TextEncoder` does). Special tokens are
 * ordinary text here, as they are there with none allowed.
 */
export function tableEncoding(table: RankTable, splitRegex: RegExp): BpeEncoding {
  const scanner = new RegExp(splitRegex.source, 'gu')
  const encoder = new TextEncoder()
  let buffer = new Uint8Array(1024)
  const memo = new Map<string, number>()
  const countPiece = (piece: string): number => {
    if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1 // every byte is a rank
    const known = memo.get(piece)
    if (known !== undefined) return known
    // A UTF-16 code unit is at most three bytes of UTF-8 (a pair of them, four).
    if (buffer.length < piece.length * 3) buffer = new Uint8Array(piece.length * 6)
    const { written } = encoder.encodeInto(piece, buffer)
    const n =
      wellFormed(piece) && textRank(table, buffer, 0, written) !== NONE
        ? 1
        : mergeCount(table, buffer, written)
    if (memo.size >= PIECE_MEMO) memo.clear()
    memo.set(piece, n)
    return n
  }
  return {
    splitRegex,
    countTokens(text: string): number {
      scanner.lastIndex = 0
      let total = 0
      for (let m = scanner.exec(text); m !== null; m = scanner.exec(text)) {
        if (m[0].length === 0) {
          scanner.lastIndex++ // the encodings' patterns always consume; this only guards the loop
          continue
        }
        total += countPiece(m[0])
      }
      return total
    },
  }
}
