import { describe, expect, it } from 'vitest'
import type { CompiledPrompt, SessionVersion, UsageOutcome } from './types.js'
import { summariseUsage } from './usage-report.js'

// The cache report of a session (SPEC §8), computed exactly: totals, each
// version in order, and per section of each version how many calls had the
// prompt up to that section's end served from cache.

const call = (
  version: number,
  inputTokens: number,
  cachedTokens: number,
  extra: Partial<UsageOutcome> = {},
) =>
  ({
    version,
    at: '2025-01-01T00:00:00.000Z',
    provider: 'openai',
    model: 'm',
    inputTokens,
    cachedTokens,
    cacheWriteTokens: 0,
    outcome: cachedTokens === 0 ? 'cold' : cachedTokens === inputTokens ? 'hot' : 'partial',
    ...extra,
  }) as UsageOutcome

/** A version whose sections hold `tokens`, listed out of prompt order to show the report sorts them by start. */
function version(number: number, sections: [string, number, number][]): SessionVersion {
  const compiled = {
    sections: sections.map(([name, start, tokens]) => ({ name, start, tokens })),
  } as unknown as CompiledPrompt
  return { version: number, hash: `h${number}`, tokens: 0, reason: 'construct', at: '', compiled }
}

describe('summariseUsage: exact figures', () => {
  it('per session, per version (in order) and per section prefix', () => {
    const history = [
      version(1, [
        ['tail', 50, 30],
        ['head', 0, 100],
      ]),
      version(2, [['only', 0, 10]]),
    ]
    const outcomes = [
      call(2, 40, 10, { cacheWriteTokens: 5 }),
      call(1, 200, 0, { cacheWriteTokens: 7 }),
      call(1, 200, 100),
      call(1, 200, 130),
      call(1, 200, 129),
    ]
    expect(summariseUsage(outcomes, history)).toEqual({
      calls: 5,
      inputTokens: 840,
      cachedTokens: 369,
      cacheWriteTokens: 12,
      hitRate: 369 / 840,
      outcomes: { hot: 0, partial: 4, cold: 1, small: 0 },
      versions: [
        {
          version: 1,
          calls: 4,
          inputTokens: 800,
          cachedTokens: 359,
          cacheWriteTokens: 7,
          hitRate: 359 / 800,
          outcomes: { hot: 0, partial: 3, cold: 1, small: 0 },
        },
        {
          version: 2,
          calls: 1,
          inputTokens: 40,
          cachedTokens: 10,
          cacheWriteTokens: 5,
          hitRate: 0.25,
          outcomes: { hot: 0, partial: 1, cold: 0, small: 0 },
        },
      ],
      sections: [
        { version: 1, section: 'head', prefixTokens: 100, calls: 4, cachedCalls: 3, hitRate: 0.75 },
        { version: 1, section: 'tail', prefixTokens: 130, calls: 4, cachedCalls: 1, hitRate: 0.25 },
        { version: 2, section: 'only', prefixTokens: 10, calls: 1, cachedCalls: 1, hitRate: 1 },
      ],
    })
  })

  it('skips the sections of a version missing from the history, and has a hit rate of 0 without input', () => {
    const report = summariseUsage(
      [call(3, 0, 0, { outcome: 'small' }), call(3, 0, 0)],
      [version(1, [['a', 0, 1]])],
    )
    expect(report).toMatchObject({ calls: 2, inputTokens: 0, hitRate: 0, sections: [] })
    expect(report.outcomes).toEqual({ hot: 0, partial: 0, cold: 1, small: 1 })
    expect(report.versions).toEqual([
      {
        version: 3,
        calls: 2,
        inputTokens: 0,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        hitRate: 0,
        outcomes: { hot: 0, partial: 0, cold: 1, small: 1 },
      },
    ])
  })

  it('is all zeros for no calls', () => {
    expect(summariseUsage([], [])).toEqual({
      calls: 0,
      inputTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      hitRate: 0,
      outcomes: { hot: 0, partial: 0, cold: 0, small: 0 },
      versions: [],
      sections: [],
    })
  })

  it('sorts versions numerically, not as text', () => {
    const report = summariseUsage([call(10, 1, 0), call(9, 1, 0), call(2, 1, 0)], [])
    expect(report.versions.map((v) => v.version)).toEqual([2, 9, 10])
  })
})
