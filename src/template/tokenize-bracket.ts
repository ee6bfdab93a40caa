import { keyKind, namespacedKeyThenBracket } from './keys.js'
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
 * is ever malformed: what is not a tag is text. Each `[` is read up to the
 * next bracket (by {@link readTag}, then the general way if that fails); a
 * `[` found there is where the next read starts, so no character is read
 * more than twice and the pass stays linear.
 */
export function scanBracket(source: string, buffer: TagBuffer): void {
  buffer.reset()
  const n = source.length
  let p = source.indexOf('[')
  while (p >= 0) {
    const from = p + 1
    const read = readTag(source, buffer, p, from)
    if (read >= 0) {
      p = source.indexOf('[', read)
      continue
    }
    let q = from
    let c = 0
    while (q < n) {
      c = source.charCodeAt(q)
      if (c === 0x5b || c === 0x5d) break
      q++
    }
    if (q >= n) break
    if (c === 0x5b) {
      p = q
      continue
    }
    const end = q + 1
    classify(source, buffer, p, from, q, end)
    p = source.indexOf('[', end)
  }
}

/**
 * The common tags (`[namespace:key]`, `[if namespace:key]`, `[else]`,
 * `[endif]`) read in one pass: pushes the tag and returns its end, or
 * returns -1 for anything else, which the caller reads the general way.
 * Reads no further than the general way would, so a source is still read
 * at most twice.
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

/** Pushes the tag written inside `[…]` (`source.slice(from, to)`), if it is one. */
function classify(
  source: string,
  buffer: TagBuffer,
  start: number,
  from: number,
  to: number,
  end: number,
): void {
  const length = to - from
  if (length === 4 && source.startsWith('else', from)) buffer.push(TagKind.Else, start, end, 0, 0)
  else if (length === 5 && source.startsWith('endif', from)) buffer.push(TagKind.End, start, end, 0, 0)
  else if (source.startsWith('if ', from)) {
    let k = from + 3
    while (k < to && source.charCodeAt(k) === 0x20) k++
    const negated = source.charCodeAt(k) === 0x21
    if (negated) k++
    if (keyKind(source, k, to) === 'namespaced') {
      buffer.push(negated ? TagKind.If | NEGATED : TagKind.If, start, end, k, to)
    }
  } else if (keyKind(source, from, to) === 'namespaced') buffer.push(TagKind.Insert, start, end, from, to)
}
