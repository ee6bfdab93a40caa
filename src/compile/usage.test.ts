import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { usageOutcome } from './counting.test-helper.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import { memoryStore } from './memory-store.js'
import { createSessionPrompts } from './sessions.js'
import type { CompiledPrompt, UsageOutcome } from './types.js'
import { classifyUsage, explainColder, isColder, normaliseUsage } from './usage.js'
import { summariseUsage } from './usage-report.js'

describe('normaliseUsage', () => {
  it('adds Anthropic cache reads and writes to the input tokens, which exclude them', () => {
    // The shape of an Anthropic Messages API `usage`.
    const usage = {
      input_tokens: 50,
      cache_read_input_tokens: 1800,
      cache_creation_input_tokens: 200,
      output_tokens: 300,
    }
    expect(normaliseUsage('anthropic', usage)).toEqual({
      inputTokens: 2050,
      cachedTokens: 1800,
      cacheWriteTokens: 200,
    })
    expect(normaliseUsage('anthropic', { id: 'msg_1', usage })).toEqual(normaliseUsage('anthropic', usage))
  })

  it('reads OpenAI cached tokens inside the input tokens, for Chat Completions and Responses', () => {
    const chat = {
      prompt_tokens: 2006,
      completion_tokens: 300,
      prompt_tokens_details: { cached_tokens: 1920 },
    }
    const responses = {
      input_tokens: 2006,
      output_tokens: 300,
      input_tokens_details: { cached_tokens: 1920 },
    }
    const expected = { inputTokens: 2006, cachedTokens: 1920, cacheWriteTokens: 0 }
    expect(normaliseUsage('openai', chat)).toEqual(expected)
    expect(normaliseUsage('openai', responses)).toEqual(expected)
    expect(normaliseUsage('openai', { usage: chat })).toEqual(expected)
  })

  it('reads Gemini usageMetadata, from the response or alone', () => {
    const usageMetadata = { promptTokenCount: 4000, cachedContentTokenCount: 3000, candidatesTokenCount: 10 }
    const expected = { inputTokens: 4000, cachedTokens: 3000, cacheWriteTokens: 0 }
    expect(normaliseUsage('gemini', usageMetadata)).toEqual(expected)
    expect(normaliseUsage('gemini', { usageMetadata })).toEqual(expected)
  })

  it('treats missing cache fields as 0', () => {
    expect(normaliseUsage('openai', { prompt_tokens: 10 })).toEqual({
      inputTokens: 10,
      cachedTokens: 0,
      cacheWriteTokens: 0,
    })
    expect(normaliseUsage('anthropic', { input_tokens: 10 }).cachedTokens).toBe(0)
  })

  it('rejects a report that is not an object, or a count that is not a non-negative number, naming the field', () => {
    expect(() => normaliseUsage('openai', null)).toThrow(/usage report must be an object, got null/)
    expect(() => normaliseUsage('anthropic', { input_tokens: '12' })).toThrow(
      'recordUsage: usage.input_tokens must be a non-negative number, got "12"',
    )
    expect(() => normaliseUsage('gemini', { promptTokenCount: -1 })).toThrow(/usageMetadata.promptTokenCount/)
  })

  it('refuses a count past 2^53, which no provider sends (two such summed were Infinity)', () => {
    expect(() =>
      normaliseUsage('anthropic', {
        cache_read_input_tokens: 1.7976931348073177e308,
        cache_creation_input_tokens: 5.5e297,
      }),
    ).toThrow(/usage.cache_read_input_tokens must be a non-negative number no larger than 2\^53 - 1/)
  })

  it('property: counts come out non-negative integers, cached never above input, or a TypeError', () => {
    const count = fc.oneof(fc.nat(), fc.double(), fc.constant(undefined), fc.string(), fc.constant(null))
    fc.assert(
      fc.property(
        fc.constantFrom('anthropic', 'openai', 'gemini' as const),
        fc.record(
          {
            input_tokens: count,
            prompt_tokens: count,
            cache_read_input_tokens: count,
            cache_creation_input_tokens: count,
            prompt_tokens_details: fc.record({ cached_tokens: count }),
            input_tokens_details: fc.record({ cached_tokens: count }),
            promptTokenCount: count,
            cachedContentTokenCount: count,
          },
          { requiredKeys: [] },
        ),
        (provider, report) => {
          try {
            const n = normaliseUsage(provider, report)
            for (const v of Object.values(n)) expect(Number.isInteger(v) && v >= 0).toBe(true)
            expect(n.cachedTokens).toBeLessThanOrEqual(n.inputTokens)
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError)
            expect((error as Error).message).toMatch(/^recordUsage: .* must be a non-negative number/)
          }
        },
      ),
    )
  })
})

describe('classifyUsage', () => {
  const usage = (cachedTokens: number) => ({ inputTokens: 5000, cachedTokens, cacheWriteTokens: 0 })
  it('is hot from 90 % of the cacheable prefix, partial below, cold at none, small below the minimum', () => {
    expect(classifyUsage(usage(1800), 2000)).toBe('hot')
    expect(classifyUsage(usage(1799), 2000)).toBe('partial')
    expect(classifyUsage(usage(0), 2000)).toBe('cold')
    expect(classifyUsage(usage(0), 0)).toBe('small')
    // The provider's report wins over the local estimate.
    expect(classifyUsage(usage(300), 0)).toBe('hot')
  })

  it('orders warmth, leaving small calls out of the comparison', () => {
    expect(isColder('hot', 'partial')).toBe(true)
    expect(isColder('partial', 'cold')).toBe(true)
    expect(isColder('cold', 'hot')).toBe(false)
    expect(isColder('hot', 'small')).toBe(false)
  })
})

const prompt = (rules: string): CompiledPrompt =>
  promptOf([
    { name: 'identity', text: filler(1500), stability: 'static' },
    { name: 'rules', text: rules, stability: 'session' },
  ])

const outcome = usageOutcome

describe('explainColder', () => {
  const a = prompt('Rule one.')
  it('names the new version, its reason, the first changed section and the file the spans give', () => {
    const b = prompt('Rule two.')
    const spanned = {
      ...b,
      sections: b.sections.map((s) =>
        s.name === 'rules'
          ? { ...s, files: [{ path: 'AGENTS.md', start: s.start, end: s.end, key: 'file:AGENTS.md' }] }
          : s,
      ),
    }
    const why = explainColder(
      { outcome: outcome({}), compiled: a },
      {
        outcome: outcome({ version: 2, outcome: 'cold', cachedTokens: 0 }),
        compiled: spanned,
        reason: 'fragment-reload',
      },
    )
    expect(why).toMatch(
      /^new version 2 \(fragment-reload\) after version 1: first change in section "rules" \(AGENTS\.md\)/,
    )
  })

  it('names a model change', () => {
    const why = explainColder(
      { outcome: outcome({}), compiled: a },
      {
        outcome: outcome({ model: 'claude-opus-4-1', outcome: 'cold', cachedTokens: 0 }),
        compiled: a,
        reason: 'construct',
      },
    )
    expect(why).toBe('model changed from claude-sonnet-4-5 to claude-opus-4-1: each model has its own cache')
  })

  it('names an expired TTL, and honours the extended one', () => {
    const later = outcome({ at: '2025-01-01T00:07:00.000Z', outcome: 'cold', cachedTokens: 0 })
    expect(
      explainColder(
        { outcome: outcome({}), compiled: a },
        { outcome: later, compiled: a, reason: 'construct' },
      ),
    ).toBe('same prompt after 7 min, longer than the anthropic cache lifetime of 5 min')
    expect(
      explainColder(
        { outcome: outcome({}), compiled: a },
        { outcome: later, compiled: a, reason: 'construct', ttl: 'extended' },
      ),
    ).toMatch(/within the 60 min cache lifetime/)
  })

  it('says Gemini promises nothing, and stays silent when the call was not colder', () => {
    const gem = (o: Partial<UsageOutcome>) => outcome({ provider: 'gemini', model: 'gemini-2.5-pro', ...o })
    expect(
      explainColder(
        { outcome: gem({}), compiled: a },
        { outcome: gem({ outcome: 'partial' }), compiled: a, reason: 'x' },
      ),
    ).toMatch(/Gemini caches implicitly with no guarantee/)
    expect(
      explainColder(
        { outcome: gem({ outcome: 'cold' }), compiled: a },
        { outcome: gem({}), compiled: a, reason: 'x' },
      ),
    ).toBe(undefined)
  })
})

describe('sessions.recordUsage', () => {
  it('classifies each call against the version it sent and says why one went cold', async () => {
    let now = new Date('2025-01-01T00:00:00.000Z')
    const store = memoryStore()
    let rules = 'Rule one.'
    const sessions = createSessionPrompts({ build: async () => prompt(rules), store, clock: () => now })
    const v1 = await sessions.construct('chat', null)
    const opts = { provider: 'openai', model: 'gpt-4.1' } as const
    const first = await sessions.recordUsage(
      'chat',
      { prompt_tokens: 1600, prompt_tokens_details: { cached_tokens: 0 } },
      opts,
    )
    expect(first).toMatchObject({ version: 1, outcome: 'cold', inputTokens: 1600, cachedTokens: 0 })
    expect(first.why).toBeUndefined()
    now = new Date('2025-01-01T00:01:00.000Z')
    const second = await sessions.recordUsage(
      'chat',
      { prompt_tokens: 1600, prompt_tokens_details: { cached_tokens: 1536 } },
      opts,
    )
    expect(second.outcome).toBe('hot')

    rules = 'Rule two.'
    await sessions.recompile('chat', null, 'fragment-reload')
    const third = await sessions.recordUsage(
      'chat',
      { prompt_tokens: 1600, prompt_tokens_details: { cached_tokens: 0 } },
      opts,
    )
    expect(third).toMatchObject({ version: 2, outcome: 'cold' })
    expect(third.why).toMatch(
      /^new version 2 \(fragment-reload\) after version 1: first change in section "rules"/,
    )
    // A late report for the first version is stored against it.
    const late = await sessions.recordUsage('chat', { prompt_tokens: 1600 }, { ...opts, hash: v1.hash })
    expect(late.version).toBe(1)
    expect(await sessions.usage('chat')).toEqual([first, second, third, late])
  })

  it('rejects an unknown session and a hash the session never sent, recording nothing', async () => {
    const store = memoryStore()
    const sessions = createSessionPrompts({ build: async () => prompt('x'), store })
    await expect(
      sessions.recordUsage('ghost', {}, { provider: 'openai', model: 'gpt-4.1' }),
    ).rejects.toMatchObject({
      code: 'not-found',
    })
    await sessions.construct('s', null)
    await expect(
      sessions.recordUsage('s', {}, { provider: 'openai', model: 'gpt-4.1', hash: 'sha256:00' }),
    ).rejects.toMatchObject({ code: 'invalid' })
    expect(await sessions.usage('s')).toEqual([])
  })
})

describe('summariseUsage', () => {
  it('reports hit rate and cached tokens per session, per version and per section prefix', () => {
    const v1 = prompt('Rule one.')
    const history = [
      { version: 1, hash: v1.hash, tokens: v1.tokens, reason: 'construct', at: '', compiled: v1 },
    ]
    const identity = v1.sections[0]!.tokens
    const report = summariseUsage(
      [
        outcome({ inputTokens: 2000, cachedTokens: 0, outcome: 'cold' }),
        outcome({ inputTokens: 2000, cachedTokens: identity, outcome: 'partial' }),
        outcome({ inputTokens: 2000, cachedTokens: 2000 }),
      ],
      history,
    )
    expect(report).toMatchObject({ calls: 3, inputTokens: 6000, cachedTokens: identity + 2000 })
    expect(report.hitRate).toBeCloseTo((identity + 2000) / 6000)
    expect(report.outcomes).toEqual({ hot: 1, partial: 1, cold: 1, small: 0 })
    expect(report.versions).toHaveLength(1)
    expect(report.sections.map((s) => [s.section, s.cachedCalls])).toEqual([
      ['identity', 2],
      ['rules', 1],
    ])
  })
})
