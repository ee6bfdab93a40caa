/**
 * Key syntax shared by both dialects (SPEC §2).
 *
 * A key is `name` (`[a-z][a-z0-9_]*`, not one of the block words) or
 * `namespace:rest` (`[a-z][a-z0-9_-]*`, a colon, then one or more characters
 * that are not whitespace, brackets or braces). {@link keyKind} checks with
 * charCode loops, so the cost is visibly linear; the tokenizers' fast path
 * reads keys with two sticky expressions whose classes hold no brace or
 * bracket, so they cannot read past a tag nor backtrack further than it.
 * {@link KeySlots} shares key strings between templates.
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

/** {@link isKeyStop}'s characters, as a regular-expression class body. */
const KEY_STOPS = '\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\[\\]{}'
/** A key of either form, then `}}`. */
const KEY_THEN_BRACES = new RegExp(`[a-z](?:[a-z0-9_]*|[a-z0-9_-]*:[^${KEY_STOPS}]+)\\}\\}`, 'y')
/** A namespaced key, then `]`. */
const NAMESPACED_KEY_THEN_BRACKET = new RegExp(`[a-z][a-z0-9_-]*:[^${KEY_STOPS}]+\\]`, 'y')

/**
 * Where a tag ends when a key (not a block word) starts at `start` and `}}`
 * follows it at once: the offset just past the `}}`, else -1.
 *
 * For tokenizers, which read each tag's key as they find its end. A sticky
 * expression reads the key in one call: `charCodeAt` is a call per character
 * in any process where some library has made an object inheriting from
 * `String.prototype` (Nunjucks' `SafeString` does), which triples the cost
 * of reading a key with it. No class in the expression holds a brace or a
 * bracket, so it reads nothing past the tag and backtracks at most over
 * what it read: linear.
 */
export function keyThenBraces(text: string, start: number): number {
  KEY_THEN_BRACES.lastIndex = start
  if (!KEY_THEN_BRACES.test(text)) return -1
  const end = KEY_THEN_BRACES.lastIndex
  return isReserved(text, start, end - 2) ? -1 : end
}

/** {@link keyThenBraces} for a namespaced key closed by `]` (the bracket dialect's tags). */
export function namespacedKeyThenBracket(text: string, start: number): number {
  NAMESPACED_KEY_THEN_BRACKET.lastIndex = start
  return NAMESPACED_KEY_THEN_BRACKET.test(text) ? NAMESPACED_KEY_THEN_BRACKET.lastIndex : -1
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

/** Longer keys are not shared: the table must not keep megabytes alive. */
const MAX_SHARED_KEY_LENGTH = 63
/** Sets of the table per key length, told apart by the key's last character. */
const SETS_PER_LENGTH = 8
/** Keys per set: a lookup compares with at most this many. */
const WAYS = 4
const TABLE_SIZE = (MAX_SHARED_KEY_LENGTH + 1) * SETS_PER_LENGTH * WAYS
/** Up to this many keys, a key the table cannot hold is found by comparing it with each known key; past it, by a map. */
const MAX_SCANNED_KEYS = 32

/**
 * `key` as V8's internalized string: the one copy every property lookup with
 * that name compares by pointer. Defining a property internalizes its name,
 * and the copy refers to nothing else (a slice of a source would keep the
 * whole source alive).
 */
function internalized(key: string): string {
  return Object.keys({ [key]: 0 })[0]!
}

/**
 * Gives each key of one template at a time its slot (its index in the
 * template's variables) as the tags are read, and its string.
 *
 * Key strings are shared across templates through a small table of
 * internalized strings, in sets by length and last character: a key seen
 * before costs no new string, and rendering's lookups of it in the values
 * take V8's fastest path, where a string fresh from the source would cost a
 * hash and a string-table probe on its first lookup. Each entry also holds
 * the key's slot, stamped with the template it belongs to, so a key
 * appearing again costs a comparison or two in place and no map. A key
 * whose set is full of the same template's keys, or a key too long to
 * share, falls back to comparing with each known key, and past
 * {@link MAX_SCANNED_KEYS} keys to a map, so any source stays linear.
 */
export class KeySlots {
  private readonly shared = new Array<string>(TABLE_SIZE).fill('')
  private readonly stamps = new Int32Array(TABLE_SIZE)
  private readonly slots = new Int32Array(TABLE_SIZE)
  /** Per set, the way to replace next when none is free. */
  private readonly victims = new Uint8Array(TABLE_SIZE / WAYS)
  private generation = 0
  private overflow: Map<string, number> | undefined = undefined
  private variables: string[] = []
  private offsets: number[] = []

  /** Starts a template. */
  begin(): void {
    this.generation++
    if (this.generation === 0x7fffffff) {
      this.stamps.fill(0)
      this.generation = 1
    }
    this.overflow = undefined
    this.variables = []
    this.offsets = []
  }

  /** The slot of the key `text.slice(start, end)`, whose tag starts at `offset`. */
  slotOf(text: string, start: number, end: number, offset: number): number {
    const length = end - start
    if (length > MAX_SHARED_KEY_LENGTH) return this.fallbackSlot(text.slice(start, end), offset)
    const set = length * SETS_PER_LENGTH + (text.charCodeAt(end - 1) & (SETS_PER_LENGTH - 1))
    const first = set * WAYS
    const { shared, stamps, generation } = this
    let free = -1
    for (let entry = first; entry < first + WAYS; entry++) {
      const key = shared[entry]!
      if (key.length === 0) {
        // Ways fill in order: the rest of the set is empty too.
        free = entry
        break
      }
      if (text.startsWith(key, start)) {
        return stamps[entry] === generation ? this.slots[entry]! : this.claim(entry, key, offset)
      }
      if (free < 0 && stamps[entry] !== generation) free = entry
    }
    const key = text.slice(start, end)
    if (free < 0) return this.fallbackSlot(key, offset)
    if (shared[free]!.length !== 0) {
      // Every way is taken: replace them in turn, so a set shared by more keys than ways keeps the recent ones.
      const victim = this.victims[set]!
      free = stamps[first + victim] !== generation ? first + victim : free
      this.victims[set] = (free - first + 1) % WAYS
    }
    return this.claim(free, internalized(key), offset)
  }
  /** The template's keys in first-appearance order and the offsets of those appearances; ends the template. */
  finish(): { variables: string[]; offsets: number[] } {
    const done = { variables: this.variables, offsets: this.offsets }
    this.variables = []
    this.offsets = []
    this.overflow = undefined
    return done
  }

  private claim(entry: number, key: string, offset: number): number {
    this.shared[entry] = key
    this.stamps[entry] = this.generation
    const slot = this.add(key, offset)
    this.slots[entry] = slot
    return slot
  }

  private fallbackSlot(key: string, offset: number): number {
    const { variables } = this
    if (this.overflow !== undefined) {
      const slot = this.overflow.get(key)
      if (slot !== undefined) return slot
    } else {
      for (let i = 0; i < variables.length; i++) if (variables[i] === key) return i
    }
    return this.add(key, offset)
  }

  private add(key: string, offset: number): number {
    const slot = this.variables.length
    this.variables.push(key)
    this.offsets.push(offset)
    if (this.overflow !== undefined) this.overflow.set(key, slot)
    else if (slot === MAX_SCANNED_KEYS) this.overflow = new Map(this.variables.map((k, i) => [k, i]))
    return slot
  }
}
