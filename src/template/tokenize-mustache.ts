import { keyThenBraces } from './keys.js'
import {
  type DialectSyntax,
  NEGATED,
  type TagBuffer,
  TagKind,
  type TokenizeResult,
  tagBuffer,
  toTokenizeResult,
} from './tokens.js'

/** What opens an `if` tag's key: `#if`, spaces, perhaps `!`. */
const IF_OPEN = /#if +!?/y

export const MUSTACHE: DialectSyntax = {
  open: '{{',
  close: '}}',
  ifTag: (key) => `{{#if ${key}}}`,
  elseTag: '{{else}}',
  endTag: '{{/if}}',
}

/**
 * Splits a mustache-dialect source into tags (SPEC §2), as objects: for the
 * linter. Compiling reads them from the buffer {@link scanMustache} fills.
 */
export function tokenizeMustache(source: string): TokenizeResult {
  scanMustache(source, tagBuffer)
  const result = toTokenizeResult(source, tagBuffer)
  tagBuffer.reset()
  return result
}

/**
 * Fills `buffer` with the tags and malformed spans of a mustache-dialect source.
 *
 * A complete group is `{{`, characters that are not braces, `}}`. A group
 * whose inside is not a key or block tag is malformed and kept whole; a `{{`
 * that opens no complete group is malformed when a `}}` follows anywhere
 * later, and ordinary prose otherwise. One native `indexOf` pass finds the
 * openings; each is read by {@link readTag}, then, when that fails, up to
 * the first brace to find where the malformed group ends, and no two such
 * reads overlap (the next `{{` cannot start before that brace), so the pass
 * stays linear even on megabytes of braces.
 */
export function scanMustache(source: string, buffer: TagBuffer): void {
  buffer.reset()
  // Found when first needed: most sources never have a `{{` that opens no group.
  let lastClose = -2
  const n = source.length
  let p = source.indexOf('{{')
  while (p >= 0) {
    const from = p + 2
    const read = readTag(source, buffer, p, from)
    if (read >= 0) {
      p = source.indexOf('{{', read)
      continue
    }
    let q = from
    let c = 0
    while (q < n) {
      c = source.charCodeAt(q)
      if (c === 0x7b || c === 0x7d) break
      q++
    }
    if (c === 0x7d && q < n && source.charCodeAt(q + 1) === 0x7d) {
      const end = q + 2
      // readTag reads every well-formed tag (its grammar is the whole of
      // SPEC §2's), so a complete group it rejected is malformed.
      buffer.pushMalformed(p, end)
      p = source.indexOf('{{', end)
    } else {
      if (lastClose === -2) lastClose = source.lastIndexOf('}}')
      if (lastClose >= from) buffer.pushMalformed(p, from)
      p = source.indexOf('{{', from)
    }
  }
}

/**
 * The tags (`{{key}}`, `{{#if key}}`, `{{#if !key}}`, `{{else}}`, `{{/if}}`)
 * read in one pass: pushes the tag and returns its end, or returns -1 for
 * anything else, which the caller keeps as malformed or prose. Reads no
 * further than the first brace after the opening, so a source is still
 * read at most twice.
 */
function readTag(source: string, buffer: TagBuffer, start: number, from: number): number {
  let keyStart = from
  let kind: number = TagKind.Insert
  const c = source.charCodeAt(from)
  if (c === 0x23) {
    IF_OPEN.lastIndex = from
    if (!IF_OPEN.test(source)) return -1
    keyStart = IF_OPEN.lastIndex
    kind = source.charCodeAt(keyStart - 1) === 0x21 ? TagKind.If | NEGATED : TagKind.If
  } else if (c === 0x2f) {
    if (!source.startsWith('/if}}', from)) return -1
    buffer.push(TagKind.End, start, from + 5, 0, 0)
    return from + 5
  } else if (c === 0x65 && source.startsWith('else}}', from)) {
    buffer.push(TagKind.Else, start, from + 6, 0, 0)
    return from + 6
  }
  const end = keyThenBraces(source, keyStart)
  if (end >= 0) buffer.push(kind, start, end, keyStart, end - 2)
  return end
}
