/*
 * The bounded queue between the relay and the recorder. The relay only
 * pushes (never awaits); one consumer at a time prepares and records each
 * item. When the queue is full the item is dropped and counted: recording
 * never delays traffic.
 */

/** A bounded first-in first-out queue drained by one asynchronous consumer. */
export class RecordQueue<T> {
  #items: T[] = []
  #running = false
  #idle: Array<() => void> = []
  /** Items dropped because the queue was full. */
  dropped = 0

  /**
   * @param size the most items waiting (the one being consumed not counted).
   * @param consume called for each item in order; the next waits for it.
   * @param onDrop called after an item is dropped, with the drop count.
   * @param onError called when `consume` throws or rejects; the queue carries on.
   */
  constructor(
    readonly size: number,
    private readonly consume: (item: T) => unknown,
    private readonly onDrop: (dropped: number) => void,
    private readonly onError: (error: unknown) => void,
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`queue size must be a positive integer, not ${size}`)
  }

  /** Items waiting. */
  get length(): number {
    return this.#items.length
  }

  /** Adds an item, or drops it when the queue is full; returns whether it was kept. Never waits. */
  push(item: T): boolean {
    if (this.#items.length >= this.size) {
      this.dropped++
      this.onDrop(this.dropped)
      return false
    }
    this.#items.push(item)
    if (!this.#running) {
      this.#running = true
      // Off the caller's stack: the relay's request handler returns first.
      setImmediate(() => void this.#drain())
    }
    return true
  }

  /** Resolves once every item pushed so far has been consumed. */
  idle(): Promise<void> {
    if (!this.#running) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  async #drain(): Promise<void> {
    for (let item = this.#items.shift(); item !== undefined; item = this.#items.shift()) {
      try {
        await this.consume(item)
      } catch (error) {
        this.onError(error)
      }
    }
    this.#running = false
    for (const resolve of this.#idle.splice(0)) resolve()
  }
}
