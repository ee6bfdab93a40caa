import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashText } from '../../shared/hash.js'
import { parseRequest, parseResponse } from './index.js'

// What pi 1.6.0 sent on the nested tree as its system prompt (its context files, then `<cwd>`).
const piSystem = readFileSync(
  join(import.meta.dirname, '../../../test/fixtures/harness/pi@1.6.0/nested.system-prompt.txt'),
  'utf8',
).replaceAll('<ROOT>', '/home/u/nested')

const body = {
  model: 'mock-model',
  messages: [
    { role: 'system', content: piSystem },
    { role: 'user', content: [{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] },
  ],
  tools: [{ type: 'function', function: { name: 'read', parameters: {} } }],
  stream: true,
  stream_options: { include_usage: true },
}

describe('Chat Completions requests', () => {
  it('reads the system prompt, then tools; nothing is injected into the first user message', () => {
    const parsed = parseRequest('openai.chat.completions', JSON.stringify(body))
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.parts.map((p) => [p.section, p.kind])).toEqual([
      ['system:1', 'system'],
      ['tool:read', 'tool'],
    ])
    expect(parsed.parts[0]!.text).toBe(piSystem)
    expect(parsed.workingDirectory).toBe('/home/u/nested/pkg')
    expect(parsed.marks).toEqual([{ at: 'message:1', ttl: '5m' }])
    expect(parsed.messageHashes).toEqual([hashText(JSON.stringify(body.messages[1]))])
    expect(parsed.streamed).toBe(true)
  })

  it("reads opencode's working directory from its <env> block", () => {
    const system = 'You are opencode.\n<env>\n  Working directory: /srv/app\n  Platform: linux\n</env>'
    const parsed = parseRequest(
      'openai.chat.completions',
      JSON.stringify({
        model: 'm',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: 'hi' },
        ],
      }),
    )
    expect(parsed).toMatchObject({ ok: true, workingDirectory: '/srv/app' })
  })

  it('refuses a message without a role', () => {
    expect(parseRequest('openai.chat.completions', '{"model":"m","messages":[{}]}')).toMatchObject({
      ok: false,
    })
  })
})

describe('Chat Completions responses', () => {
  const usage = { prompt_tokens: 2000, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 1920 } }

  it('reads the usage chunk of a stream', () => {
    const chunk = (extra: object) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', choices: [], ...extra })}\n\n`
    const stream = chunk({ choices: [{ delta: { content: 'ok' } }] }) + chunk({ usage }) + 'data: [DONE]\n\n'
    expect(parseResponse('openai.chat.completions', stream, { streamed: true })).toEqual({
      ok: true,
      id: 'chatcmpl-1',
      usage: { inputTokens: 2000, cacheReadTokens: 1920, cacheWriteTokens: 0, outputTokens: 3 },
    })
  })

  it('reads JSON, and a stream without usage has none', () => {
    expect(
      parseResponse('openai.chat.completions', JSON.stringify({ id: 'c', usage }), { streamed: false }),
    ).toMatchObject({
      usage: { cacheReadTokens: 1920 },
    })
    expect(
      parseResponse('openai.chat.completions', 'data: {"id":"c"}\n\ndata: [DONE]\n\n', { streamed: true }),
    ).toEqual({
      ok: true,
      id: 'c',
    })
  })
})
