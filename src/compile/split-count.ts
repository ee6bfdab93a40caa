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
  if (text.length <= SPLIT_LENGTH) return encoding.countTokens(text, asText)
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
