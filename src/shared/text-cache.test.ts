import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TextCache } from './text-cache.js'

const long = (fill: string, at: number, mark: string) => {
  const chars = fill.repeat(20_000).split('')
  chars[at] = mark
  return chars.join('')
}

describe('TextCache', () => {
  it('keeps long texts of one length apart, even when they differ only where no sample looks', () => {
    const cache = new TextCache<number>(16)
    const texts = Array.from({ length: 4 }, (_, i) => long('a', 10_001 + i, 'b'))
    for (const [i, t] of texts.entries()) cache.set(t, i)
    for (const [i, t] of texts.entries()) expect(cache.get(t)).toBe(i)
    expect(cache.get(long('a', 9_999, 'c'))).toBeUndefined()
  })

  it('drops the oldest entry of an overfull bucket rather than growing it', () => {
    const cache = new TextCache<number>(16)
    const texts = Array.from({ length: 6 }, (_, i) => long('a', 10_001 + i, 'b'))
    for (const [i, t] of texts.entries()) cache.set(t, i)
    expect(cache.get(texts[0]!)).toBeUndefined()
    expect(cache.get(texts[5]!)).toBe(5)
  })

  it('property: what was set last for a text is what get returns', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 40 }), fc.integer())), (entries) => {
        const cache = new TextCache<number>(1024)
        const want = new Map<string, number>()
        for (const [text, value] of entries) {
          cache.set(text, value)
          want.set(text, value)
        }
        for (const [text, value] of want) expect(cache.get(text)).toBe(value)
      }),
    )
  })
})

describe('TextCache memory bound', () => {
  it('lets go of old long texts once the characters it holds pass the bound', () => {
    const cache = new TextCache<number>(1000, 100_000)
    const texts = Array.from({ length: 12 }, (_, i) => `${i} `.padEnd(20_000, 'x'))
    for (const [i, t] of texts.entries()) cache.set(t, i)
    // 20 000 characters each, 100 000 per generation: only the last two generations' texts remain.
    expect(cache.get(texts[0]!)).toBeUndefined()
    expect(cache.get(texts[11]!)).toBe(11)
  })
})
