/**
 * V8 hashes a string longer than this by its length alone, so a Map keyed by
 * long texts puts every text of one length in one bucket and compares them
 * all on each lookup: a harness whose 30 KB prompts differ only in a
 * fixed-width id would pay a full comparison per cached prompt.
 */
const V8_FULL_HASH_LIMIT = 16383
/** Characters sampled from a long text for its key. */
const SAMPLES = 512
const EDGE = 256

/** FNV-1a over the text's edges and evenly spaced samples: cheap, and it separates texts that differ at either end. */
function sampledKey(text: string): string {
  const n = text.length
  let h = 0x811c9dc5
  for (let i = 0; i < EDGE; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  for (let i = n - EDGE; i < n; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  const step = Math.floor((n - 2 * EDGE) / SAMPLES) || 1
  for (let i = EDGE; i < n - EDGE; i += step) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return `${n}:${(h >>> 0).toString(36)}`
}

interface Entry<V> {
  text: string
  value: V
  /** Another entry whose long text sampled to the same key. */
  next: Entry<V> | undefined
}

/** One generation: entries by key, and how many characters of text they hold. */
class Generation<V> {
  readonly entries = new Map<string, Entry<V>>()
  chars = 0
}

function keyOf(text: string): string {
  return text.length <= V8_FULL_HASH_LIMIT ? text : sampledKey(text)
}

function find<V>(entry: Entry<V> | undefined, text: string): Entry<V> | undefined {
  while (entry !== undefined && entry.text !== text) entry = entry.next
  return entry
}

/**
 * A bounded cache keyed by text, for memos of hashes, token counts and
 * renders. Short texts key a map directly; long ones by a sampled hash, with
 * the few texts sharing a key compared in full. Two generations keep what
 * was used recently: a hit in the young one costs one lookup, a hit in the
 * old one promotes the entry, and the young generation becomes the old one
 * when it holds `capacity` entries or `maxChars` characters, so the memory a
 * cache keeps is bounded by both (a server recompiling 30 KB prompts for
 * thousands of sessions keeps at most a few megabytes of them).
 */
export class TextCache<V> {
  private young = new Generation<V>()
  private old = new Generation<V>()

  constructor(
    private readonly capacity: number,
    private readonly maxChars = 4 << 20,
  ) {}

  get(text: string): V | undefined {
    const key = keyOf(text)
    const hit = find(this.young.entries.get(key), text)
    if (hit !== undefined) return hit.value
    const aged = find(this.old.entries.get(key), text)
    if (aged === undefined) return undefined
    this.insert(key, text, aged.value)
    return aged.value
  }

  set(text: string, value: V): void {
    const key = keyOf(text)
    const existing = find(this.young.entries.get(key), text)
    if (existing !== undefined) existing.value = value
    else this.insert(key, text, value)
  }

  private insert(key: string, text: string, value: V): void {
    const young = this.young
    // At most a few texts share a sampled key: the chain keeps the newest four.
    const next = young.entries.get(key)
    const third = next?.next?.next
    if (third !== undefined) third.next = undefined
    young.entries.set(key, { text, value, next })
    young.chars += text.length
    if (young.entries.size >= this.capacity || young.chars >= this.maxChars) {
      this.old = young
      this.young = new Generation()
    }
  }

  clear(): void {
    this.young = new Generation()
    this.old = new Generation()
  }
}
