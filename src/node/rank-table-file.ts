import { endianness } from 'node:os'
import { checkedFile, readCheckedFile } from './code-cache.js'
import { decodeRankTable, type RankTable } from './rank-table.js'

// A rank table on disk is a checked file (code-cache.ts: one header line,
// then the payload): the header pins the table's format, the encoding, the
// gpt-tokenizer version whose ranks it holds and the byte order of its
// words, and the payload's sha256. A table that differs in any of these, is
// damaged or truncated, or is not a well-formed table is refused, and the
// encoding loads from gpt-tokenizer itself.

/** What a rank table file says it is on its first line. */
const FORMAT = 'sysprompt-rank-table/1'
/** A rank table larger than this is not one the build wrote (o200k's is about 4.2 MB). */
const MAX_BYTES = 16 * 1024 * 1024

function header(encoding: string, tokenizerVersion: string): Record<string, string> {
  return { format: FORMAT, encoding, tokenizer: `gpt-tokenizer@${tokenizerVersion}`, endian: endianness() }
}

/** The bytes of a rank table file: `payload` (from `encodeRankTable`) for `encoding` of gpt-tokenizer `tokenizerVersion`. */
export function rankTableFile(encoding: string, tokenizerVersion: string, payload: Uint8Array): Buffer {
  return checkedFile(header(encoding, tokenizerVersion), payload)
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
): RankTable | undefined {
  const payload = readCheckedFile(path, header(encoding, tokenizerVersion), MAX_BYTES)
  return payload === undefined ? undefined : decodeRankTable(payload)
}
