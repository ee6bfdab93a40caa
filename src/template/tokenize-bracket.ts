import { keyKind } from './keys.js'
import { type DialectSyntax, type Tag, TagKind, type TokenizeResult } from './tokens.js'

export const BRACKET: DialectSyntax = {
  open: '[',
  close: ']',
  ifTag: (key) => `[if ${key}]`,
  elseTag: '[else]',
  endTag: '[endif]',
}

/**
 * Splits a bracket-dialect source into tags (SPEC §2, seed 000).
 *
 * Only namespaced keys make tags, so Markdown (`- [x] done`, `[todo]`,
 * `[docs](url)`) stays text, as does anything else in brackets. Nothing here
 * is ever malformed: what is not a tag is text. Each `[` is read up to the
 * next bracket; a `[` found there is where the next read starts, so no
 * character is read twice and the pass stays linear.
 */
export function tokenizeBracket(source: string): TokenizeResult {
  const tags: Tag[] = []
  const n = source.length
  let p = source.indexOf('[')
  while (p >= 0) {
    const from = p + 1
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
    const tag = classify(source, p, from, q, end)
    if (tag !== null) tags.push(tag)
    p = source.indexOf('[', end)
  }
  return { tags, malformed: [] }
}

function classify(source: string, start: number, from: number, to: number, end: number): Tag | null {
  const length = to - from
  if (length === 4 && source.startsWith('else', from))
    return { kind: TagKind.Else, start, end, key: '', negated: false }
  if (length === 5 && source.startsWith('endif', from))
    return { kind: TagKind.End, start, end, key: '', negated: false }
  if (source.startsWith('if ', from)) {
    let k = from + 3
    while (k < to && source.charCodeAt(k) === 0x20) k++
    const negated = source.charCodeAt(k) === 0x21
    if (negated) k++
    if (keyKind(source, k, to) !== 'namespaced') return null
    return { kind: TagKind.If, start, end, key: source.slice(k, to), negated }
  }
  if (keyKind(source, from, to) !== 'namespaced') return null
  return { kind: TagKind.Insert, start, end, key: source.slice(from, to), negated: false }
}
