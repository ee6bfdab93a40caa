import { LruCache } from './cache.js'

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
/** Entries kept per sampled key; more means the sampling keeps colliding. */
const BUCKET = 4

/** FNV-1a over the text's edges and evenly spaced samples: cheap, and it separates texts that differ at either end. */
function sampledKey(text: string): string {
  const n = text.length
  let h = 0x811c9dc5
  const mix = (c: number): void => {
    h = Math.imul(h ^ c, 0x01000193)
  }
  for (let i = 0; i < EDGE; i++) mix(text.charCodeAt(i))
  for (let i = n - EDGE; i < n; i++) mix(text.charCodeAt(i))
  const step = Math.floor((n - 2 * EDGE) / SAMPLES) || 1
  for (let i = EDGE; i < n - EDGE; i += step) mix(text.charCodeAt(i))
  return `${n}:${(h >>> 0).toString(36)}`
}

/**
 * A bounded cache keyed by text. Short texts key a map directly; long ones
 * key it by a sampled hash, with a small bucket of entries compared in full.
 */
export class TextCache<V> {
  private readonly short: LruCache<string, V>
  private readonly long: LruCache<string, { text: string; value: V }[]>

  constructor(capacity: number) {
    this.short = new LruCache(capacity)
    this.long = new LruCache(Math.max(8, capacity >> 2))
  }

  get(text: string): V | undefined {
    if (text.length <= V8_FULL_HASH_LIMIT) return this.short.get(text)
    const bucket = this.long.get(sampledKey(text))
    if (bucket === undefined) return undefined
    for (const entry of bucket) if (entry.text === text) return entry.value
    return undefined
  }

  set(text: string, value: V): void {
    if (text.length <= V8_FULL_HASH_LIMIT) {
      this.short.set(text, value)
      return
    }
    const key = sampledKey(text)
    const bucket = this.long.get(key)
    if (bucket === undefined) {
      this.long.set(key, [{ text, value }])
      return
    }
    const existing = bucket.find((entry) => entry.text === text)
    if (existing !== undefined) existing.value = value
    else {
      bucket.unshift({ text, value })
      if (bucket.length > BUCKET) bucket.pop()
    }
  }

  clear(): void {
    this.short.clear()
    this.long.clear()
  }
}
