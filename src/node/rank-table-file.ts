import { endianness } from 'node:os'
import { checkedFile, readCheckedFile } from './code-cache.js'
import { decodeRankTable, type RankTable } from './rank-table.js'

// A rank table on disk is a checked file (code-cache.ts: one header line,
// then the payload): the header pins the table's format, the encoding, the
// gpt-tokenizer version whose ranks it holds and the byte order of its
// words, and the payload's sha256. A table that differs in any of these, is
// damaged or truncated, or is not a well-formed table is refused, and the
// encoding loads from gpt-tokenizer itself. The header also carries the
// encoding's pre-tokenizer, gpt-tokenizer's own pattern copied by the build,
// so a cold count loads no module of gpt-tokenizer's.

/** What a rank table file says it is on its first line. */
const FORMAT = 'sysprompt-rank-table/1'
/** A rank table larger than this is not one the build wrote (o200k's is about 4.2 MB). */
const MAX_BYTES = 16 * 1024 * 1024

function header(encoding: string, tokenizerVersion: string): Record<string, string> {
  return { format: FORMAT, encoding, tokenizer: `gpt-tokenizer@${tokenizerVersion}`, endian: endianness() }
}

/** A rank table read back: the ranks and the encoding's pre-tokenizer (global, unicode). */
export interface RankTableFile {
  table: RankTable
  splitRegex: RegExp
}

/**
 * The bytes of a rank table file: `payload` (from `encodeRankTable`) for
 * `encoding` of gpt-tokenizer `tokenizerVersion`, whose pre-tokenizer is
 * `splitRegex` (gpt-tokenizer's, a global unicode expression).
 */
export function rankTableFile(
  encoding: string,
  tokenizerVersion: string,
  splitRegex: RegExp,
  payload: Uint8Array,
): Buffer {
  if (splitRegex.flags !== 'gu') throw new TypeError(`${encoding}: the pre-tokenizer must be /…/gu`)
  return checkedFile({ ...header(encoding, tokenizerVersion), split: splitRegex.source }, payload)
}

/**
 * The rank table at `path`, when it is a valid table of `encoding` for
 * gpt-tokenizer `tokenizerVersion` on this machine's byte order; otherwise
 * (missing, damaged, truncated, foreign, malformed) `undefined`. One
 * size-capped read of a regular file, never through a link.
 */
export function readRankTable(
  path: string,
  encoding: string,
  tokenizerVersion: string,
): RankTableFile | undefined {
  const file = readCheckedFile(path, header(encoding, tokenizerVersion), MAX_BYTES)
  const table = file === undefined ? undefined : decodeRankTable(file.payload)
  const split = file?.header.split
  if (table === undefined || split === undefined) return undefined
  try {
    return { table, splitRegex: new RegExp(split, 'gu') }
  } catch {
    return undefined // not a pattern: not a file the build wrote
  }
}
