/**
 * Token counting that is linear on any input.
 *
 * A BPE counter first cuts the text into pre-tokens with the encoding's
 * regular expression, then merges byte pairs inside each pre-token; the
 * merge is quadratic in the pre-token's length. Ordinary text has short
 * pre-tokens (words, numbers of up to three digits, runs of punctuation),
 * but 250 KB of NUL bytes, a run of emoji or a minified blob is one
 * pre-token of that whole length, and counting it would take minutes. So a
 * pre-token longer than {@link SPLIT_LENGTH} is counted in pieces of at most
 * that length (the count of such a run then differs from the unsplit one by
 * a few tokens at each cut); text whose pre-tokens are all shorter is
 * counted exactly as the encoding counts it, in one call.
 */

/** What counting needs from an encoding: gpt-tokenizer's `countTokens` and its pre-tokenizer. */
export interface BpeEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number
  /** The encoding's pre-tokenizer (global, unicode). */
  splitRegex: RegExp
}

/** The longest pre-token (UTF-16 code units) merged whole. Changing it changes counts: bump the split version in `TOKENIZER_VERSION`. */
export const SPLIT_LENGTH = 128

// Special-token text (`<|endoftext|>`) is ordinary text in a system prompt:
// counting it must never throw, so no special token is disallowed.
const asText = { disallowedSpecial: new Set<string>() }

/** Per encoding, a private copy of its pre-tokenizer (its `lastIndex` is ours to move). */
const scanners = new WeakMap<BpeEncoding, RegExp>()

function scannerOf(encoding: BpeEncoding): RegExp {
  let re = scanners.get(encoding)
  if (re === undefined) {
    re = new RegExp(encoding.splitRegex.source, 'gu')
    scanners.set(encoding, re)
  }
  return re
}

/** Whether `c` is a `\\s` character of a unicode regular expression. */
function isSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d)
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

/**
 * Whether `text` surely has no pre-token longer than SPLIT_LENGTH, from one
 * pass over its characters (much cheaper than pre-tokenizing it here first).
 * A pre-token of either encoding is at most one leading character and two
 * runs: letters or other non-space characters, then possibly line breaks
 * and slashes; or it is a run of spaces. So a long one holds a run of at
 * least half the split length of non-space characters, or of spaces and
 * slashes; a text with neither is counted in one call.
 */
function surelyShort(text: string): boolean {
  const limit = SPLIT_LENGTH >> 1
  let solid = 0
  let open = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const space = isSpace(c)
    solid = space ? 0 : solid + 1
    open = space || c === 0x2f ? open + 1 : 0
    if (solid >= limit || open >= limit) return false
  }
  return true
}

/** A long pre-token counted in pieces of at most SPLIT_LENGTH code units, never cutting a surrogate pair. */
function countLong(encoding: BpeEncoding, piece: string): number {
  let total = 0
  for (let start = 0; start < piece.length; ) {
    let end = Math.min(start + SPLIT_LENGTH, piece.length)
    const last = piece.charCodeAt(end - 1)
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end--
    total += encoding.countTokens(piece.slice(start, end), asText)
    start = end
  }
  return total
}

/** The number of tokens of `text` in `encoding`, linear in its length (see the module's doc). */
export function splitCount(encoding: BpeEncoding, text: string): number {
  // No pre-token can be longer than the text.
  if (text.length <= SPLIT_LENGTH || surelyShort(text)) return encoding.countTokens(text, asText)
  const re = scannerOf(encoding)
  re.lastIndex = 0
  let total = 0
  let segmentStart = 0
  let split = false
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const piece = m[0]
    if (piece.length === 0) {
      re.lastIndex++ // the encodings' patterns always consume; this only guards the loop
      continue
    }
    if (piece.length <= SPLIT_LENGTH) continue
    split = true
    if (m.index > segmentStart) total += encoding.countTokens(text.slice(segmentStart, m.index), asText)
    total += countLong(encoding, piece)
    segmentStart = m.index + piece.length
  }
  if (!split) return encoding.countTokens(text, asText)
  if (segmentStart < text.length) total += encoding.countTokens(text.slice(segmentStart), asText)
  return total
}
