/**
 * Key syntax shared by both dialects (SPEC §2).
 *
 * A key is `name` (`[a-z][a-z0-9_]*`, not one of the block words) or
 * `namespace:rest` (`[a-z][a-z0-9_-]*`, a colon, then one or more characters
 * that are not whitespace, brackets or braces). Checked with charCode loops
 * rather than regular expressions so the cost is visibly linear and nothing
 * backtracks on untrusted input.
 */

/** Whether `text.slice(start, end)` is one of the block words, without slicing it. */
function isReserved(text: string, start: number, end: number): boolean {
  const length = end - start
  return (
    (length === 2 && text.startsWith('if', start)) ||
    (length === 4 && text.startsWith('else', start)) ||
    (length === 5 && text.startsWith('endif', start))
  )
}

function isLower(c: number): boolean {
  return c >= 0x61 && c <= 0x7a
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

/** Whitespace, `[`, `]`, `{` or `}`: characters a namespaced key's rest may not hold. */
function isKeyStop(c: number): boolean {
  return (
    c === 0x5b ||
    c === 0x5d ||
    c === 0x7b ||
    c === 0x7d ||
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
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
 * The kind of key `text.slice(start, end)` is: `'name'`, `'namespaced'`, or
 * `null` when it is not a key at all.
 */
export function keyKind(text: string, start: number, end: number): 'name' | 'namespaced' | null {
  if (end <= start || !isLower(text.charCodeAt(start))) return null
  let i = start + 1
  while (i < end) {
    const c = text.charCodeAt(i)
    if (isLower(c) || isDigit(c) || c === 0x5f) i++
    else break
  }
  if (i === end) return isReserved(text, start, end) ? null : 'name'
  // The namespace may also hold `-`, which a plain name may not.
  while (i < end) {
    const c = text.charCodeAt(i)
    if (isLower(c) || isDigit(c) || c === 0x5f || c === 0x2d) i++
    else break
  }
  if (i === end || text.charCodeAt(i) !== 0x3a || i + 1 === end) return null
  for (let j = i + 1; j < end; j++) if (isKeyStop(text.charCodeAt(j))) return null
  return 'namespaced'
}

/** Whether `key` is a valid key of either form (`model`, `git:branch`, `file:docs/A.md`). */
export function isValidKey(key: string): boolean {
  return keyKind(key, 0, key.length) !== null
}

/** Whether `key` is a valid plain (not namespaced) name such as `model`. */
export function isPlainName(key: string): boolean {
  return keyKind(key, 0, key.length) === 'name'
}

/** The namespace of a namespaced key (`git` for `git:branch`), else `undefined`. */
export function keyNamespace(key: string): string | undefined {
  if (keyKind(key, 0, key.length) !== 'namespaced') return undefined
  return key.slice(0, key.indexOf(':'))
}
