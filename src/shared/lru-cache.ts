/**
 * A bounded cache that keeps recently used entries: two generations of maps.
 * Hits in the young generation cost one lookup (no delete and re-insert, which
 * dominated profiles of recompiles); a hit in the old generation promotes the
 * entry; when the young generation is full it becomes the old one and the
 * previous old one is dropped. So at most `2 × capacity` entries are held and
 * anything used within the last `capacity` insertions survives.
 */
export class LruCache<K, V> {
  private young = new Map<K, V>()
  private old = new Map<K, V>()

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.young.get(key)
    if (value !== undefined) return value
    const aged = this.old.get(key)
    if (aged !== undefined) {
      this.old.delete(key)
      this.insert(key, aged)
    }
    return aged
  }

  set(key: K, value: V): void {
    this.old.delete(key)
    this.insert(key, value)
  }

  private insert(key: K, value: V): void {
    this.young.set(key, value)
    if (this.young.size >= this.capacity) {
      this.old = this.young
      this.young = new Map()
    }
  }

  clear(): void {
    this.young.clear()
    this.old.clear()
  }

  get size(): number {
    return this.young.size + this.old.size
  }
}
