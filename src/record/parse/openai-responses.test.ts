import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashText } from '../../shared/hash.js'
import { parseRequest, parseResponse } from './index.js'

// What Codex 0.171.0 sent on the ruff tree as its AGENTS.md text.
const agents = readFileSync(
  join(import.meta.dirname, '../../../test/fixtures/harness/codex@0.171.0/ruff.separate-message.txt'),
  'utf8',
)
const environment =
  '<environment_context>\n  <cwd>/home/u/ruff</cwd>\n  <shell>bash</shell>\n</environment_context>'

function codexBody(overrides: Record<string, unknown> = {}) {
  return {
    model: 'gpt-5',
    instructions: 'You are Codex, based on GPT-5.',
    tools: [{ type: 'function', name: 'shell', parameters: { type: 'object' } }, { type: 'web_search' }],
    input: [
      {
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: '<permissions instructions>' }],
      },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: agents },
          { type: 'input_text', text: environment },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
      { type: 'function_call_output', call_id: 'c1', output: 'done' },
    ],
    prompt_cache_key: 'conv-42',
    stream: true,
    ...overrides,
  }
}

describe('OpenAI Responses requests', () => {
  it('reads instructions, tools, leading developer input and the injected texts in cache order', () => {
    const parsed = parseRequest('openai.responses', JSON.stringify(codexBody()), { session_id: 'codex-s' })
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.parts.map((p) => [p.section, p.kind])).toEqual([
      ['system:1', 'system'],
      ['tool:shell', 'tool'],
      ['tool:web_search', 'tool'],
      ['system:2', 'system'],
      ['message:1', 'injected'],
    ])
    expect(parsed.parts[4]!.text).toBe(`${agents}\n${environment}`)
    expect(parsed.promptCacheKey).toBe('conv-42')
    expect(parsed.workingDirectory).toBe('/home/u/ruff')
    expect(parsed.conversation).toBe('codex-s')
    // Codex 0.171 spells the header `session-id`.
    const hyphen = parseRequest('openai.responses', JSON.stringify(codexBody()), { 'session-id': 'codex-h' })
    expect(hyphen.ok && hyphen.conversation).toBe('codex-h')
    expect(parsed.marks).toEqual([])
    expect(parsed.streamed).toBe(true)
    expect(parsed.messageHashes).toHaveLength(2)
  })

  it('keeps the prompt out of the injected part when both share a message', () => {
    const body = codexBody({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: agents },
            { type: 'input_text', text: 'hello' },
          ],
        },
      ],
    })
    const parsed = parseRequest('openai.responses', JSON.stringify(body))
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.parts.at(-1)!.text).toBe(agents)
    const prompt = [{ type: 'input_text', text: 'hello' }]
    expect(parsed.messageHashes).toEqual([hashText(JSON.stringify(prompt))])
    expect(parsed.conversation).toBe(hashText(JSON.stringify(prompt)))
    expect(parsed.workingDirectory).toBeUndefined()
  })

  it('takes a string input as one user message', () => {
    const parsed = parseRequest('openai.responses', '{"model":"gpt-5","input":"hi"}')
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.parts).toEqual([])
    expect(parsed.messageHashes).toEqual([hashText(JSON.stringify({ role: 'user', content: 'hi' }))])
  })

  it('refuses an unknown shape', () => {
    expect(parseRequest('openai.responses', '{"model":"gpt-5","input":3}')).toMatchObject({ ok: false })
    expect(parseRequest('openai.responses', '{"model":"gpt-5","input":[],"tools":[1]}')).toMatchObject({
      ok: false,
    })
  })
})

describe('OpenAI Responses responses', () => {
  const usage = { input_tokens: 5000, input_tokens_details: { cached_tokens: 4864 }, output_tokens: 9 }

  it('reads JSON with the diagnostic', () => {
    const diagnostics = { cache_miss: { reason: 'prefix_changed', cache_missed_tokens: 136 } }
    const body = { id: 'resp_1', usage, prompt_cache_diagnostics: diagnostics }
    expect(parseResponse('openai.responses', JSON.stringify(body), { streamed: false })).toEqual({
      ok: true,
      id: 'resp_1',
      usage: { inputTokens: 5000, cacheReadTokens: 4864, cacheWriteTokens: 0, outputTokens: 9 },
      diagnostics,
    })
  })

  it('reads the usage of the response.completed event', () => {
    const response = { id: 'resp_2', status: 'in_progress' }
    const stream = [
      `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response })}`,
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'o' })}`,
      `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { ...response, usage } })}`,
    ].join('\n\n')
    expect(parseResponse('openai.responses', stream, { streamed: true })).toMatchObject({
      id: 'resp_2',
      usage: { inputTokens: 5000, cacheReadTokens: 4864 },
    })
  })
})
