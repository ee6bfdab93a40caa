import { keyKind } from './keys.js'
import { type DialectSyntax, type Malformed, type Tag, TagKind, type TokenizeResult } from './tokens.js'

export const MUSTACHE: DialectSyntax = {
  open: '{{',
  close: '}}',
  ifTag: (key) => `{{#if ${key}}}`,
  elseTag: '{{else}}',
  endTag: '{{/if}}',
}

/**
 * Splits a mustache-dialect source into tags (SPEC §2).
 *
 * A complete group is `{{`, characters that are not braces, `}}`. A group
 * whose inside is not a key or block tag is malformed and kept whole; a `{{`
 * that opens no complete group is malformed when a `}}` follows anywhere
 * later, and ordinary prose otherwise. One native `indexOf` pass finds the
 * openings; the inside of each is read up to the first brace, and no two
 * such reads overlap (the next `{{` cannot start before that brace), so the
 * pass stays linear even on megabytes of braces.
 */
export function tokenizeMustache(source: string): TokenizeResult {
  const tags: Tag[] = []
  const malformed: Malformed[] = []
  const lastClose = source.lastIndexOf('}}')
  const n = source.length
  let p = source.indexOf('{{')
  while (p >= 0) {
    const from = p + 2
    let q = from
    let c = 0
    while (q < n) {
      c = source.charCodeAt(q)
      if (c === 0x7b || c === 0x7d) break
      q++
    }
    if (c === 0x7d && q < n && source.charCodeAt(q + 1) === 0x7d) {
      const end = q + 2
      const tag = classify(source, p, from, q, end)
      if (tag === null) malformed.push({ start: p, end, unpaired: false })
      else tags.push(tag)
      p = source.indexOf('{{', end)
    } else {
      if (lastClose >= from) malformed.push({ start: p, end: from, unpaired: true })
      p = source.indexOf('{{', from)
    }
  }
  return { tags, malformed }
}

/** The tag written inside `{{…}}` (`source.slice(from, to)`), or `null` when it is malformed. */
function classify(source: string, start: number, from: number, to: number, end: number): Tag | null {
  const length = to - from
  if (length === 4 && source.startsWith('else', from))
    return { kind: TagKind.Else, start, end, key: '', negated: false }
  if (length === 3 && source.startsWith('/if', from))
    return { kind: TagKind.End, start, end, key: '', negated: false }
  if (source.startsWith('#if ', from)) {
    let k = from + 4
    while (k < to && source.charCodeAt(k) === 0x20) k++
    const negated = source.charCodeAt(k) === 0x21
    if (negated) k++
    if (keyKind(source, k, to) === null) return null
    return { kind: TagKind.If, start, end, key: source.slice(k, to), negated }
  }
  if (keyKind(source, from, to) === null) return null
  return { kind: TagKind.Insert, start, end, key: source.slice(from, to), negated: false }
}
