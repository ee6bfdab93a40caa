import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { RecordedUsage } from './call-record.js'
import { reusableAfter, warmth } from './colder.js'

const usage = (u: Partial<RecordedUsage>): RecordedUsage => ({
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  ...u,
})

describe('the colder-call engine', () => {
  it('Anthropic: the previous read plus write is reusable', () => {
    expect(
      reusableAfter('anthropic', usage({ inputTokens: 9000, cacheReadTokens: 5000, cacheWriteTokens: 3000 })),
    ).toBe(8000)
  })

  it('OpenAI: input rounded down to 128, nothing under 1 024', () => {
    expect(reusableAfter('openai', usage({ inputTokens: 1023 }))).toBe(0)
    expect(reusableAfter('openai', usage({ inputTokens: 1024 }))).toBe(1024)
    expect(reusableAfter('openai', usage({ inputTokens: 2000 }))).toBe(1920)
  })

  it('Gemini: the prompt tokens', () => {
    expect(reusableAfter('gemini', usage({ inputTokens: 4500, cacheReadTokens: 100 }))).toBe(4500)
  })

  it('a call that read less than was reusable is colder, and says how much it lost', () => {
    const before = usage({ inputTokens: 8000, cacheReadTokens: 0, cacheWriteTokens: 7000 })
    expect(warmth('anthropic', before, usage({ inputTokens: 8200, cacheReadTokens: 7000 }))).toEqual({
      reusable: 7000,
      read: 7000,
      lost: 0,
      colder: false,
    })
    expect(warmth('anthropic', before, usage({ inputTokens: 8200, cacheWriteTokens: 8100 }))).toEqual({
      reusable: 7000,
      read: 0,
      lost: 7000,
      colder: true,
    })
  })

  it('a smaller next request loses at most what it sent', () => {
    const before = usage({ inputTokens: 5000, cacheWriteTokens: 5000 })
    expect(warmth('anthropic', before, usage({ inputTokens: 300 })).lost).toBe(300)
  })

  it('never loses more than was reusable, never less than 0', () => {
    const u = fc.record({
      inputTokens: fc.nat(1e6),
      cacheReadTokens: fc.nat(1e6),
      cacheWriteTokens: fc.nat(1e6),
      outputTokens: fc.nat(1e6),
    })
    fc.assert(
      fc.property(fc.constantFrom('anthropic', 'openai', 'gemini' as const), u, u, (provider, a, b) => {
        const w = warmth(provider, a, b)
        return w.lost >= 0 && w.lost <= w.reusable && w.colder === w.lost > 0
      }),
    )
  })
})
