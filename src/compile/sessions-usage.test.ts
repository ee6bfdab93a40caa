import { describe, expect, it } from 'vitest'
import { countingStore } from './counting.test-helper.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import { memoryStore } from './memory-store.js'
import { createSessionPrompts } from './sessions.js'
import type { CompiledPrompt, PromptStore } from './types.js'

// `recordUsage` of the session prompts: which version a report is stored
// against, which earlier prompt its `why` is measured from, and what it costs
// the store.

interface Texts {
  identity: string
  rules: string
}

/** A prompt big enough to cache at OpenAI (over 1 024 tokens), in two sections. */
const prompt = ({ identity, rules }: Texts): CompiledPrompt =>
  promptOf([
    { name: 'identity', text: `${identity} ${filler(1500)}`, stability: 'static' },
    { name: 'rules', text: rules, stability: 'session' },
  ])

const openai = { provider: 'openai', model: 'gpt-4.1' } as const
const hot = { prompt_tokens: 1600, prompt_tokens_details: { cached_tokens: 1536 } }
const cold = { prompt_tokens: 1600, prompt_tokens_details: { cached_tokens: 0 } }

function sessionOf(store: PromptStore = memoryStore(), clock = () => new Date('2025-01-01T00:00:00.000Z')) {
  const texts: Texts = { identity: 'One.', rules: 'Rule one.' }
  const sessions = createSessionPrompts({ build: async () => prompt(texts), store, clock })
  return { sessions, texts }
}

describe('sessions.recordUsage: versions', () => {
  it('stores a report for a hash sent twice against the latest version with that hash', async () => {
    const { sessions, texts } = sessionOf()
    const a = await sessions.construct('chat', null)
    texts.rules = 'Rule two.'
    await sessions.recompile('chat', null, 'fragment-reload')
    texts.rules = 'Rule one.'
    await sessions.recompile('chat', null, 'fragment-reload')
    texts.rules = 'Rule three.'
    await sessions.recompile('chat', null, 'fragment-reload')
    const history = await sessions.history('chat')
    expect(history.map((v) => v.hash === a.hash)).toEqual([true, false, true, false])
    const outcome = await sessions.recordUsage('chat', hot, { ...openai, hash: a.hash })
    expect(outcome.version).toBe(3)
  })

  it("explains a colder call from the prompt of the previous call's version, not an older one", async () => {
    const { sessions, texts } = sessionOf()
    await sessions.construct('chat', null)
    texts.identity = 'Two.'
    await sessions.recompile('chat', null, 'fragment-reload')
    await sessions.recordUsage('chat', hot, openai)
    texts.rules = 'Rule two.'
    const v3 = (await sessions.recompile('chat', null, 'template-change')).compiled
    const outcome = await sessions.recordUsage('chat', cold, openai)
    // Versions 2 and 3 share the identity section; version 1 differs from 3 there already.
    const identity = v3.sections[0]!.tokens
    expect(outcome).toMatchObject({ version: 3, outcome: 'cold' })
    expect(outcome.why).toBe(
      `new version 3 (template-change) after version 2: first change in section "rules"; ${identity} tokens before it could still be cached`,
    )
  })

  it('gives no why when the previous call was of a version the history no longer holds', async () => {
    const inner = memoryStore()
    const store: PromptStore = {
      ...inner,
      // A store that pruned old versions but kept their usage.
      usage: async (id) => (await inner.usage(id)).map((o) => ({ ...o, version: 99 })),
    }
    const { sessions } = sessionOf(store)
    await sessions.construct('chat', null)
    await sessions.recordUsage('chat', hot, openai)
    const outcome = await sessions.recordUsage('chat', cold, openai)
    expect(outcome).toMatchObject({ version: 1, outcome: 'cold' })
    expect(Object.keys(outcome)).not.toContain('why')
  })

  it('carries no why key on a call that was not colder', async () => {
    const { sessions } = sessionOf()
    await sessions.construct('chat', null)
    const first = await sessions.recordUsage('chat', cold, openai)
    const second = await sessions.recordUsage('chat', hot, openai)
    for (const outcome of [first, second, ...(await sessions.usage('chat'))]) {
      expect(Object.keys(outcome)).not.toContain('why')
    }
  })

  it('measures an expired cache against the lifetime the request asked for', async () => {
    let now = new Date('2025-01-01T00:00:00.000Z')
    const { sessions } = sessionOf(memoryStore(), () => now)
    await sessions.construct('chat', null)
    await sessions.recordUsage('chat', hot, openai)
    now = new Date('2025-01-01T00:15:00.000Z')
    const plain = await sessions.recordUsage('chat', cold, openai)
    expect(plain.why).toBe('same prompt after 15 min, longer than the openai cache lifetime of 10 min')
    await sessions.recordUsage('chat', hot, openai)
    now = new Date('2025-01-01T00:30:00.000Z')
    const extended = await sessions.recordUsage('chat', cold, { ...openai, ttl: 'extended' })
    expect(extended.why).toBe(
      'same prompt and model within the 24 h cache lifetime: the provider evicted the prefix or routed the call to another cache',
    )
  })

  it('reads no history for reports of the current version, by hash or by default', async () => {
    const { store, counts } = countingStore(memoryStore())
    const { sessions } = sessionOf(store)
    const current = await sessions.construct('chat', null)
    await sessions.recordUsage('chat', hot, { ...openai, hash: current.hash })
    await sessions.recordUsage('chat', cold, openai)
    expect((await sessions.usage('chat')).map((o) => o.version)).toEqual([1, 1])
    expect(counts.history).toBeUndefined()
  })
})
