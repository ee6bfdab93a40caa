import { describe, expect, it } from 'vitest'
import { signal } from './mock-provider.test-helper.js'
import { RecordQueue } from './record-queue.js'

function queueOf(options: { size: number; maxBytes?: number }) {
  const release = signal()
  const consumed: number[] = []
  const drops: number[] = []
  const queue = new RecordQueue<number>({
    ...options,
    weigh: (n) => n,
    consume: async (n) => {
      consumed.push(n)
      await release.promise
    },
    onDrop: (dropped) => drops.push(dropped),
    onError: () => {},
  })
  return { queue, release, consumed, drops }
}

describe('RecordQueue', () => {
  it('keeps order, drops past its size while the consumer is busy, and counts the drops', async () => {
    const { queue, release, consumed, drops } = queueOf({ size: 2 })
    expect(queue.push(1)).toBe(true)
    await new Promise((resolve) => setImmediate(resolve)) // the consumer took 1 and is busy
    expect([queue.push(2), queue.push(3), queue.push(4), queue.push(5)]).toEqual([true, true, false, false])
    expect(drops).toEqual([1, 2])
    release.resolve()
    await queue.idle()
    expect(consumed).toEqual([1, 2, 3])
    expect(queue.dropped).toBe(2)
  })

  it('drops an item that would pass the byte bound, and frees the bytes once consumed', async () => {
    const { queue, release, consumed } = queueOf({ size: 10, maxBytes: 100 })
    expect([queue.push(60), queue.push(50), queue.push(40)]).toEqual([true, false, true])
    release.resolve()
    await queue.idle()
    expect(queue.push(100)).toBe(true)
    await queue.idle()
    expect(consumed).toEqual([60, 40, 100])
  })

  it('carries on after a failing consumer, reporting the error', async () => {
    const errors: unknown[] = []
    const seen: number[] = []
    const queue = new RecordQueue<number>({
      size: 4,
      consume: (n) => {
        seen.push(n)
        if (n === 1) throw new Error('store closed')
      },
      onDrop: () => {},
      onError: (error) => errors.push(error),
    })
    queue.push(1)
    queue.push(2)
    await queue.idle()
    expect(seen).toEqual([1, 2])
    expect(errors).toHaveLength(1)
  })
})
