/*
 * The bounded queue between the relay and the recorder. The relay only
 * pushes (never awaits); one consumer at a time prepares and records each
 * item. When the queue is full the item is dropped and counted: recording
 * never delays traffic.
 */

/** How a record queue is bounded and fed. */
export interface RecordQueueOptions<T> {
  /** The most items waiting (the one being consumed not counted). */
  size: number
  /** The most bytes held by waiting items and the one being consumed, by `weigh`. Default: no bound. */
  maxBytes?: number
  /** The bytes an item holds (its body copies). Default 0. */
  weigh?: (item: T) => number
  /** Called for each item in order; the next waits for it. */
  consume: (item: T) => unknown
  /** Called after an item is dropped, with the drop count. */
  onDrop: (dropped: number) => void
  /** Called when `consume` throws or rejects; the queue carries on. */
  onError: (error: unknown) => void
}

/** A bounded first-in first-out queue drained by one asynchronous consumer. */
export class RecordQueue<T> {
  #items: T[] = []
  #bytes = 0
  #running = false
  #idle: Array<() => void> = []
  /** Items dropped because the queue was full. */
  dropped = 0

  constructor(private readonly options: RecordQueueOptions<T>) {
    const { size } = options
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`queue size must be a positive integer, not ${size}`)
  }

  /** Items waiting. */
  get length(): number {
    return this.#items.length
  }

  /** Adds an item, or drops it when the queue is full; returns whether it was kept. Never waits. */
  push(item: T): boolean {
    const weight = this.options.weigh?.(item) ?? 0
    const full =
      this.#items.length >= this.options.size || this.#bytes + weight > (this.options.maxBytes ?? Infinity)
    if (full) {
      this.dropped++
      this.options.onDrop(this.dropped)
      return false
    }
    this.#bytes += weight
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
        await this.options.consume(item)
      } catch (error) {
        this.options.onError(error)
      }
      this.#bytes -= this.options.weigh?.(item) ?? 0
    }
    this.#running = false
    for (const resolve of this.#idle.splice(0)) resolve()
  }
}
