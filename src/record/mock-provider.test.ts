import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ANTHROPIC_LOOKBACK_BLOCKS,
  createCacheRules,
  estimateTokens,
} from './mock-cache-rules.test-helper.js'
import { type MockProvider, startMockProvider } from './mock-provider.test-helper.js'
import { parseResponse } from './parse/index.js'

/** A text of about `tokens` estimated tokens. */
const long = (tokens: number, letter = 'a') => letter.repeat(tokens * 4)

function messages(system: string, ttl?: '1h') {
  return {
    model: 'claude-sonnet-4-5', // 1024-token minimum
    system: [
      { type: 'text', text: 'You are a coding agent.' },
      { type: 'text', text: system, cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } },
    ],
    messages: [{ role: 'user', content: 'hello' }],
  }
}

describe('the mock’s Anthropic rules', () => {
  it('writes at a mark, then reads the same prefix', () => {
    const rules = createCacheRules({ now: () => 0 })
    const first = rules.anthropic(messages(long(2000)))
    expect(first.cache_read_input_tokens).toBe(0)
    expect(first.cache_creation_input_tokens).toBeGreaterThan(2000)
    const second = rules.anthropic(messages(long(2000)))
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens)
    expect(second.cache_creation_input_tokens).toBe(0)
    expect(second.input_tokens).toBe(first.input_tokens)
  })

  it('misses when a system block changed', () => {
    const rules = createCacheRules({ now: () => 0 })
    rules.anthropic(messages(long(2000)))
    const changed = rules.anthropic(messages(long(2000, 'b')))
    expect(changed.cache_read_input_tokens).toBe(0)
    expect(changed.cache_creation_input_tokens).toBeGreaterThan(2000)
  })

  it('expires after the mark’s time to live, on the injected clock; a read renews it', () => {
    let now = 0
    const rules = createCacheRules({ now: () => now })
    rules.anthropic(messages(long(2000)))
    now = 4 * 60_000
    expect(rules.anthropic(messages(long(2000))).cache_read_input_tokens).toBeGreaterThan(0)
    now += 5 * 60_000 - 1
    expect(rules.anthropic(messages(long(2000))).cache_read_input_tokens).toBeGreaterThan(0)
    now += 5 * 60_000 + 1
    expect(rules.anthropic(messages(long(2000))).cache_read_input_tokens).toBe(0)
    // One hour asked: still there after 30 minutes.
    rules.anthropic(messages(long(3000), '1h'))
    now += 30 * 60_000
    const read = rules.anthropic(messages(long(3000), '1h'))
    expect(read.cache_read_input_tokens).toBeGreaterThan(3000)
  })

  it('never caches a prefix below the model’s minimum', () => {
    const rules = createCacheRules({ now: () => 0 })
    for (let i = 0; i < 2; i++) {
      const usage = rules.anthropic(messages(long(900)))
      expect(usage.cache_creation_input_tokens).toBe(0)
      expect(usage.cache_read_input_tokens).toBe(0)
    }
    // The same text on a model whose minimum is 4096 is not cached either, above 1024.
    const haiku = { ...messages(long(2000)), model: 'claude-haiku-4-5' }
    rules.anthropic(haiku)
    expect(rules.anthropic(haiku).cache_read_input_tokens).toBe(0)
  })

  it('finds an earlier write within 20 blocks before a mark, not further', () => {
    const turns = (n: number) => ({
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text', text: long(2000) }],
      messages: Array.from({ length: n }, (_, i) => ({
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: [
          {
            type: 'text',
            text: `turn ${i}`,
            ...(i === n - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
          },
        ],
      })),
    })
    const rules = createCacheRules({ now: () => 0 })
    rules.anthropic(turns(2))
    const near = rules.anthropic(turns(2 + ANTHROPIC_LOOKBACK_BLOCKS - 1))
    expect(near.cache_read_input_tokens).toBeGreaterThan(2000)
    const far = createCacheRules({ now: () => 0 })
    far.anthropic(turns(2))
    expect(far.anthropic(turns(2 + ANTHROPIC_LOOKBACK_BLOCKS)).cache_read_input_tokens).toBe(0)
  })
})

describe('the mock’s OpenAI and Gemini rules', () => {
  const chat = (system: string, key?: string) => ({
    model: 'gpt-5',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'hello' },
    ],
    ...(key ? { prompt_cache_key: key } : {}),
  })

  it('caches from 1024 tokens in steps of 128, per prompt_cache_key', () => {
    const rules = createCacheRules({ now: () => 0 })
    expect(rules.openai(chat(long(1500)), 'chat').cached).toBe(0)
    const second = rules.openai(chat(long(1500)), 'chat')
    expect(second.cached).toBeGreaterThanOrEqual(1024)
    expect((second.cached - 1024) % 128).toBe(0)
    expect(second.cached).toBeLessThanOrEqual(second.input)
    expect(rules.openai(chat(long(1500), 'other'), 'chat').cached).toBe(0)
    const short = createCacheRules({ now: () => 0 })
    short.openai(chat(long(900)), 'chat')
    expect(short.openai(chat(long(900)), 'chat').cached).toBe(0)
  })

  it('reports Gemini’s implicit cache only above the model’s minimum', () => {
    const rules = createCacheRules({ now: () => 0 })
    const body = (tokens: number) => ({
      systemInstruction: { parts: [{ text: long(tokens) }] },
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
    })
    rules.gemini(body(3000), 'gemini-2.5-flash')
    expect(rules.gemini(body(3000), 'gemini-2.5-flash').cached).toBeGreaterThanOrEqual(3000)
    rules.gemini(body(1500), 'gemini-2.5-flash')
    expect(rules.gemini(body(1500), 'gemini-2.5-flash').cached).toBe(0) // minimum 2048
  })

  it('estimates tokens as a quarter of the JSON’s characters', () => {
    expect(estimateTokens('abcdef')).toBe(2) // `"abcdef"` is 8 characters
  })
})

describe('the mock over HTTP', () => {
  let mock: MockProvider
  beforeAll(async () => {
    mock = await startMockProvider({ now: () => 0 })
  })
  afterAll(() => mock.close())

  async function post(path: string, body: unknown): Promise<string> {
    const res = await fetch(`${mock.url}${path}`, { method: 'POST', body: JSON.stringify(body) })
    expect(res.status).toBe(200)
    return res.text()
  }

  it('answers each provider streamed and not, with usage the parser reads', async () => {
    const anthropic = { ...messages(long(2000)), stream: true }
    await post('/v1/messages', anthropic)
    const streamed = parseResponse('anthropic.messages', await post('/v1/messages', anthropic), {
      streamed: true,
    })
    expect(streamed).toMatchObject({ ok: true, id: 'msg_mock', usage: { cacheWriteTokens: 0 } })
    expect(streamed.ok && streamed.usage!.cacheReadTokens).toBeGreaterThan(2000)

    const responses = { model: 'gpt-5', instructions: long(1500), input: 'hi' }
    await post('/v1/responses', responses)
    const plain = parseResponse('openai.responses', await post('/v1/responses', responses), {
      streamed: false,
    })
    expect(plain.ok && plain.usage!.cacheReadTokens).toBeGreaterThanOrEqual(1024)
    const sse = parseResponse(
      'openai.responses',
      await post('/v1/responses', { ...responses, stream: true }),
      {
        streamed: true,
      },
    )
    expect(sse).toMatchObject({
      ok: true,
      id: 'resp_mock',
      usage: { cacheReadTokens: plain.ok && plain.usage!.cacheReadTokens },
    })

    const chat = { ...chat1500(), stream: true, stream_options: { include_usage: true } }
    await post('/v1/chat/completions', chat)
    const chatUsage = parseResponse('openai.chat.completions', await post('/v1/chat/completions', chat), {
      streamed: true,
    })
    expect(chatUsage.ok && chatUsage.usage!.cacheReadTokens).toBeGreaterThanOrEqual(1024)

    const gemini = {
      systemInstruction: { parts: [{ text: long(3000) }] },
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    }
    const path = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'
    await post(path, gemini)
    const geminiUsage = parseResponse('gemini.streamGenerateContent', await post(path, gemini), {
      streamed: true,
    })
    expect(geminiUsage.ok && geminiUsage.usage!.cacheReadTokens).toBeGreaterThanOrEqual(3000)
    expect(mock.calls).toHaveLength(9)
  })

  it('answers count_tokens and refuses a path it does not serve', async () => {
    const counted = parseResponse(
      'anthropic.count_tokens',
      await post('/v1/messages/count_tokens', messages('x')),
      {
        streamed: false,
      },
    )
    expect(counted.ok && counted.usage!.inputTokens).toBeGreaterThan(0)
    const res = await fetch(`${mock.url}/v1/embeddings`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(404)
  })
})

function chat1500() {
  return {
    model: 'gpt-5',
    messages: [
      { role: 'system', content: long(1500, 'c') },
      { role: 'user', content: 'hello' },
    ],
  }
}
