import { namespacedKeyThenBracket } from './keys.js'
import {
  type DialectSyntax,
  NEGATED,
  type TagBuffer,
  TagKind,
  type TokenizeResult,
  tagBuffer,
  toTokenizeResult,
} from './tokens.js'

/** What opens an `if` tag's key: `if`, spaces, perhaps `!`. */
const IF_OPEN = /if +!?/y

export const BRACKET: DialectSyntax = {
  open: '[',
  close: ']',
  ifTag: (key) => `[if ${key}]`,
  elseTag: '[else]',
  endTag: '[endif]',
}

/**
 * Splits a bracket-dialect source into tags (SPEC §2, seed 000), as
 * objects: for the linter. Compiling reads them from the buffer
 * {@link scanBracket} fills.
 */
export function tokenizeBracket(source: string): TokenizeResult {
  scanBracket(source, tagBuffer)
  const result = toTokenizeResult(source, tagBuffer)
  tagBuffer.reset()
  return result
}

/**
 * Fills `buffer` with the tags of a bracket-dialect source.
 *
 * Only namespaced keys make tags, so Markdown (`- [x] done`, `[todo]`,
 * `[docs](url)`) stays text, as does anything else in brackets. Nothing here
 * is ever malformed: what is not a tag is text. Each `[` is read by
 * {@link readTag}, which stops at the next bracket at the latest, and the
 * next read starts at the next `[`, so no character is read more than twice
 * and the pass stays linear.
 */
export function scanBracket(source: string, buffer: TagBuffer): void {
  buffer.reset()
  let p = source.indexOf('[')
  while (p >= 0) {
    const read = readTag(source, buffer, p, p + 1)
    // Not a tag: `[` starts text. The next read starts at the next `[`, even
    // one inside these brackets (`[x [ns:key]`).
    p = source.indexOf('[', read >= 0 ? read : p + 1)
  }
}

/**
 * The tags (`[namespace:key]`, `[if namespace:key]`, `[if !namespace:key]`,
 * `[else]`, `[endif]`) read in one pass: pushes the tag and returns its end,
 * or returns -1 for anything else (text). Reads no further than the next
 * bracket: no class of the key expressions holds one.
 *
 * The only reader: a second, general reading of what this one rejects (a
 * `classify` of the text up to the next bracket) accepted exactly the same
 * tags, so it never pushed one and was removed as dead code.
 */
function readTag(source: string, buffer: TagBuffer, start: number, from: number): number {
  let keyStart = from
  let kind: number = TagKind.Insert
  const c = source.charCodeAt(from)
  if (c === 0x65 && source.startsWith('else]', from)) {
    buffer.push(TagKind.Else, start, from + 5, 0, 0)
    return from + 5
  } else if (c === 0x65 && source.startsWith('endif]', from)) {
    buffer.push(TagKind.End, start, from + 6, 0, 0)
    return from + 6
  } else if (c === 0x69) {
    IF_OPEN.lastIndex = from
    if (IF_OPEN.test(source)) {
      keyStart = IF_OPEN.lastIndex
      kind = source.charCodeAt(keyStart - 1) === 0x21 ? TagKind.If | NEGATED : TagKind.If
    }
  }
  const end = namespacedKeyThenBracket(source, keyStart)
  if (end >= 0) buffer.push(kind, start, end, keyStart, end - 1)
  return end
}
