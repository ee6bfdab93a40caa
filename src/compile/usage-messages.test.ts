import { describe, expect, it } from 'vitest'
import type { PromptAssembly } from '../registry/types.js'
import { compile } from './compile.js'
import { usageOutcome } from './counting.test-helper.js'
import { diffCompiled } from './diff.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import type { CompiledPrompt, CompileOptions, UsageOutcome } from './types.js'
import { explainColder, isColder, normaliseUsage, outcomeOf } from './usage.js'

// What recordUsage tells a harness, pinned whole: why a call went colder
// (SPEC §8), and which field of a usage report is wrong and why.

const outcome = usageOutcome

const cold = (over: Partial<UsageOutcome> = {}) => outcome({ outcome: 'cold', cachedTokens: 0, ...over })

/** A prompt whose `rules` section includes two files side by side, after a line of its own. */
function rulesPrompt(intro: string, a: string, b: string, options: CompileOptions = {}): CompiledPrompt {
  const assembly: PromptAssembly = {
    sections: [
      { name: 'identity', order: 0, text: filler(1200), dialect: 'mustache', stability: 'static' },
      {
        name: 'rules',
        order: 1,
        text: '{{intro}}\n{{file:A.md}}{{file:B.md}}',
        dialect: 'mustache',
        stability: 'session',
      },
    ],
    tools: [],
    variables: { intro, 'file:A.md': a, 'file:B.md': b },
    stability: {},
  }
  return compile(assembly, { tokenizer: 'estimate', ...options })
}

/** Why version 2 (`after`) was colder than version 1 (`before`). */
const whyNew = (before: CompiledPrompt, after: CompiledPrompt) =>
  explainColder(
    { outcome: outcome(), compiled: before },
    { outcome: cold({ version: 2 }), compiled: after, reason: 'fragment-reload' },
  )

describe('explainColder: a new version', () => {
  const v1 = rulesPrompt('Intro.', 'Alpha file.', 'Beta file.')

  it('names the file the first change lies in, even at the first character of the second file', () => {
    const v2 = rulesPrompt('Intro.', 'Alpha file.', 'Boot file.')
    const rules = v2.sections[1]!
    expect(diffCompiled(v1, v2).firstDifference).toBe(rules.files![1]!.start + 1)
    const v3 = rulesPrompt('Intro.', 'Alpha file.', 'Zeta file.')
    expect(diffCompiled(v1, v3).firstDifference).toBe(rules.files![1]!.start)
    const tokens = diffCompiled(v1, v3).commonPrefixTokens
    expect(whyNew(v1, v3)).toBe(
      `new version 2 (fragment-reload) after version 1: first change in section "rules" (B.md); ${tokens} tokens before it could still be cached`,
    )
    expect(whyNew(v1, v2)).toMatch(/first change in section "rules" \(B\.md\);/)
  })

  it("falls back to the section's fragment in the manifest when no file holds the change", () => {
    const manifest = [
      { id: 'identity', source: 'fragments/identity.md', contentHash: 'sha256:1', dynamic: false },
      { id: 'rules', source: 'fragments/rules.md', contentHash: 'sha256:2', dynamic: false },
    ]
    const v2 = rulesPrompt('Outro.', 'Alpha file.', 'Beta file.', { manifest })
    expect(whyNew(v1, v2)).toMatch(/: first change in section "rules" \(fragments\/rules\.md\); \d+ tokens/)
    const bare = rulesPrompt('Outro.', 'Alpha file.', 'Beta file.')
    const tokens = diffCompiled(v1, bare).commonPrefixTokens
    expect(whyNew(v1, bare)).toBe(
      `new version 2 (fragment-reload) after version 1: first change in section "rules"; ${tokens} tokens before it could still be cached`,
    )
  })

  it('says when the new prompt is a prefix of the old one', () => {
    const long = promptOf([
      { name: 'identity', text: filler(1200) },
      { name: 'extra', text: 'Dropped later.' },
    ])
    const short = promptOf([{ name: 'identity', text: filler(1200) }])
    expect(whyNew(long, short)).toBe(
      `new version 2 (fragment-reload) after version 1: the new prompt is a prefix of the old one; ${short.tokens} tokens before it could still be cached`,
    )
  })
})

describe('explainColder: the same version', () => {
  const compiled = promptOf([{ name: 'identity', text: filler(1200) }])
  const why = (current: UsageOutcome, ttl?: 'default' | 'extended', previous = outcome()) =>
    explainColder(
      { outcome: previous, compiled },
      { outcome: current, compiled, reason: 'construct', ...(ttl === undefined ? {} : { ttl }) },
    )

  it('names a provider change before a model change', () => {
    expect(why(cold({ provider: 'openai', model: 'gpt-5' }))).toBe(
      'provider changed from anthropic to openai',
    )
  })

  it('counts a call exactly one lifetime later as within it', () => {
    expect(why(cold({ at: '2025-01-01T00:05:00.000Z' }))).toBe(
      'same prompt and model within the 5 min cache lifetime: the provider evicted the prefix or routed the call to another cache',
    )
    expect(why(cold({ at: '2025-01-01T00:05:00.001Z' }))).toBe(
      'same prompt after 5 min, longer than the anthropic cache lifetime of 5 min',
    )
  })

  it('gives durations of two hours and more in hours', () => {
    expect(why(cold({ at: '2025-01-01T01:59:00.000Z' }), 'extended')).toBe(
      'same prompt after 119 min, longer than the anthropic cache lifetime of 60 min',
    )
    expect(why(cold({ at: '2025-01-01T02:00:00.000Z' }), 'extended')).toBe(
      'same prompt after 2 h, longer than the anthropic cache lifetime of 60 min',
    )
    const openai = { provider: 'openai', model: 'gpt-5' } as const
    expect(why(cold({ ...openai, at: '2025-01-02T01:00:00.000Z' }), 'extended', outcome(openai))).toBe(
      'same prompt after 25 h, longer than the openai cache lifetime of 24 h',
    )
  })

  it('says nothing when the call was as warm as the one before', () => {
    expect(isColder('hot', 'hot')).toBe(false)
    expect(isColder('partial', 'partial')).toBe(false)
    expect(isColder('cold', 'cold')).toBe(false)
    expect(why(outcome({ at: '2025-01-01T09:00:00.000Z' }))).toBeUndefined()
  })
})

describe('normaliseUsage: the field at fault', () => {
  const fails = (provider: 'anthropic' | 'openai' | 'gemini', usage: unknown, field: string, got: string) =>
    expect(() => normaliseUsage(provider, usage)).toThrow(
      new TypeError(
        `recordUsage: ${field} must be a non-negative number, got ${got}; pass the usage object the provider SDK returned`,
      ),
    )

  it('names each field with the object it belongs to', () => {
    fails('anthropic', { cache_read_input_tokens: 'many' }, 'usage.cache_read_input_tokens', '"many"')
    fails('anthropic', { cache_creation_input_tokens: -2 }, 'usage.cache_creation_input_tokens', '-2')
    fails('openai', { input_tokens: true }, 'usage.input_tokens', 'true')
    fails(
      'openai',
      { prompt_tokens: 5, prompt_tokens_details: { cached_tokens: '1' } },
      'usage.prompt_tokens_details.cached_tokens',
      '"1"',
    )
    fails(
      'openai',
      { input_tokens: 5, input_tokens_details: { cached_tokens: -1 } },
      'usage.input_tokens_details.cached_tokens',
      '-1',
    )
    fails(
      'gemini',
      { promptTokenCount: 5, cachedContentTokenCount: 'x' },
      'usageMetadata.cachedContentTokenCount',
      '"x"',
    )
  })

  it('rejects counts that are not finite', () => {
    fails('openai', { prompt_tokens: Number.NaN }, 'usage.prompt_tokens', 'null')
    fails('anthropic', { input_tokens: Number.POSITIVE_INFINITY }, 'usage.input_tokens', 'null')
  })

  it('reads a null count as 0, as a missing one', () => {
    expect(normaliseUsage('anthropic', { input_tokens: 7, cache_read_input_tokens: null })).toEqual({
      inputTokens: 7,
      cachedTokens: 0,
      cacheWriteTokens: 0,
    })
  })

  it('names what it got instead of a report object', () => {
    for (const [usage, got] of [
      ['usage', 'string'],
      [12, 'number'],
      [undefined, 'undefined'],
      [null, 'null'],
    ] as const) {
      expect(() => normaliseUsage('openai', usage)).toThrow(
        new TypeError(
          `recordUsage: the openai usage report must be an object, got ${got}; pass response.usage as the SDK returned it`,
        ),
      )
    }
  })
})

describe('outcomeOf', () => {
  it("classifies against the cacheable prefix of the call's own provider and model", () => {
    const compiled = promptOf([{ name: 'identity', text: filler(1100) }])
    const context = { version: 1, at: '2025-01-01T00:00:00.000Z', provider: 'anthropic' as const }
    const usage = { input_tokens: 1100, cache_read_input_tokens: 0 }
    expect(outcomeOf(usage, compiled, { ...context, model: 'claude-sonnet-4-5' }).outcome).toBe('cold')
    expect(outcomeOf(usage, compiled, { ...context, model: 'claude-haiku-4-5' })).toEqual({
      ...context,
      model: 'claude-haiku-4-5',
      inputTokens: 1100,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      outcome: 'small',
    })
  })
})
