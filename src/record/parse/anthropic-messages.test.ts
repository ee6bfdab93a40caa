import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashText } from '../../shared/hash.js'
import { parseRequest, parseResponse } from './index.js'

// What Claude Code 2.1.332 sent on the ruff tree: its instruction files, through the end of their <system-reminder>.
const files = readFileSync(
  join(import.meta.dirname, '../../../test/fixtures/harness/claude@2.1.332/ruff.first-user-message.txt'),
  'utf8',
)
const reminder = `<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd${files}`

function claudeBody(overrides: Record<string, unknown> = {}) {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 32000,
    stream: true,
    metadata: { user_id: 'user_abc_account_def_session_123' },
    tools: [
      { name: 'Bash', description: 'Run a command', input_schema: { type: 'object' } },
      {
        name: 'Read',
        description: 'Read a file',
        input_schema: { type: 'object' },
        cache_control: { type: 'ephemeral' },
      },
    ],
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      {
        type: 'text',
        text: 'Here is useful information about the environment you are running in:\n<env>\nWorking directory: /home/u/ruff\nIs directory a git repo: Yes\n</env>',
        cache_control: { type: 'ephemeral', ttl: '1h' },
      },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: reminder },
          { type: 'text', text: '<system-reminder>\nToday is Sunday.\n</system-reminder>' },
          { type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
      { role: 'user', content: 'list the files' },
    ],
    ...overrides,
  }
}

const headers = { 'X-Claude-Code-Session-Id': 'sess-1', 'content-type': 'application/json' }

describe('Anthropic Messages requests', () => {
  it('reads tools, system blocks and the injected reminders in cache order', () => {
    const parsed = parseRequest('anthropic.messages', JSON.stringify(claudeBody()), headers)
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.parts.map((p) => [p.section, p.kind])).toEqual([
      ['tool:Bash', 'tool'],
      ['tool:Read', 'tool'],
      ['system:1', 'system'],
      ['system:2', 'system'],
      ['message:1', 'injected'],
    ])
    const injected = parsed.parts[4]!
    expect(injected.text).toContain('Contents of <ROOT>/AGENTS.md')
    expect(injected.text).toContain('Today is Sunday.')
    expect(injected.text).not.toContain('hello')
    expect(injected.hash).toBe(hashText(injected.bytes))
    expect(JSON.parse(injected.bytes)).toHaveLength(2)
    expect(parsed.model).toBe('claude-sonnet-4-5')
    expect(parsed.streamed).toBe(true)
    expect(parsed.workingDirectory).toBe('/home/u/ruff')
  })

  it('reads marks with their place and time to live', () => {
    const parsed = parseRequest('anthropic.messages', JSON.stringify(claudeBody()), headers)
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.marks).toEqual([
      { at: 'tool:Read', ttl: '5m' },
      { at: 'system:2', ttl: '1h' },
      { at: 'message:1', ttl: '5m' },
    ])
    const automatic = parseRequest(
      'anthropic.messages',
      JSON.stringify(claudeBody({ cache_control: { type: 'ephemeral', ttl: '1h' } })),
    )
    if (!automatic.ok) throw new Error(automatic.reason)
    expect(automatic.marks.at(-1)).toEqual({ at: 'message:3', ttl: '1h' })
  })

  it('names the conversation by session and agent, else the user id hash, else the first prompt', () => {
    const withAgent = parseRequest('anthropic.messages', JSON.stringify(claudeBody()), {
      ...headers,
      'x-claude-code-agent-id': 'agent-7',
    })
    if (!withAgent.ok) throw new Error(withAgent.reason)
    expect(withAgent.conversation).toBe('sess-1/agent-7')
    const noHeaders = parseRequest('anthropic.messages', JSON.stringify(claudeBody()))
    if (!noHeaders.ok) throw new Error(noHeaders.reason)
    expect(noHeaders.conversation).toBe(hashText('user_abc_account_def_session_123'))
    expect(JSON.stringify(noHeaders)).not.toContain('user_abc_account')
    const bare = parseRequest('anthropic.messages', JSON.stringify(claudeBody({ metadata: undefined })))
    if (!bare.ok) throw new Error(bare.reason)
    // The first user message after the reminders: the prompt alone, so another day's reminder is the same conversation.
    expect(bare.conversation).toBe(bare.identity.firstUserMessageHash)
    const body = claudeBody({ metadata: undefined })
    ;(body.messages[0]!.content as { text: string }[])[1]!.text =
      '<system-reminder>\nToday is Monday.\n</system-reminder>'
    const nextDay = parseRequest('anthropic.messages', JSON.stringify(body))
    if (!nextDay.ok) throw new Error(nextDay.reason)
    expect(nextDay.conversation).toBe(bare.conversation)
    expect(nextDay.parts[4]!.hash).not.toBe(bare.parts[4]!.hash)
  })

  it('hashes each later message, the rest of the first one first', () => {
    const parsed = parseRequest('anthropic.messages', JSON.stringify(claudeBody()))
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.messageHashes).toEqual([
      hashText(JSON.stringify([{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }])),
      hashText(JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] })),
      hashText(JSON.stringify({ role: 'user', content: 'list the files' })),
    ])
  })

  it('splits a string first message after its leading reminders', () => {
    const body = claudeBody({
      messages: [{ role: 'user', content: `${reminder}\n<system-reminder>x</system-reminder>\nhello` }],
      system: 'plain system',
    })
    const parsed = parseRequest('anthropic.messages', JSON.stringify(body))
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.parts.map((p) => p.section)).toEqual(['tool:Bash', 'tool:Read', 'system:1', 'message:1'])
    expect(parsed.parts[3]!.text.endsWith('<system-reminder>x</system-reminder>')).toBe(true)
    expect(parsed.messageHashes).toEqual([hashText(JSON.stringify('\nhello'))])
  })

  it('refuses shapes it does not know, saying what is wrong', () => {
    expect(parseRequest('anthropic.messages', '{"model":"m"}')).toEqual({
      ok: false,
      reason: 'an Anthropic Messages body has a `messages` list',
    })
    expect(parseRequest('anthropic.messages', '{"model":"m","messages":[],"tools":[{}]}')).toMatchObject({
      ok: false,
    })
    expect(parseRequest('anthropic.messages', '[]')).toMatchObject({ ok: false })
  })
})

describe('Anthropic Messages responses', () => {
  const usage = {
    input_tokens: 10,
    cache_read_input_tokens: 3000,
    cache_creation_input_tokens: 200,
    output_tokens: 1,
  }

  it('reads a JSON response, its usage summed and its diagnostic', () => {
    const body = {
      id: 'msg_1',
      usage: { ...usage, output_tokens: 42 },
      diagnostics: { cache_miss_reason: { type: 'system_changed' } },
    }
    expect(parseResponse('anthropic.messages', JSON.stringify(body), { streamed: false })).toEqual({
      ok: true,
      id: 'msg_1',
      usage: { inputTokens: 3210, cacheReadTokens: 3000, cacheWriteTokens: 200, outputTokens: 42 },
      diagnostics: { type: 'system_changed' },
    })
  })

  it('reads a stream: message_start, then the cumulative message_delta', () => {
    const events = [
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_2', usage } })}`,
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', delta: { text: 'ok' } })}`,
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens: 57 } })}`,
      `event: message_stop\ndata: {"type":"message_stop"}`,
    ]
    expect(parseResponse('anthropic.messages', `${events.join('\n\n')}\n\n`, { streamed: true })).toEqual({
      ok: true,
      id: 'msg_2',
      usage: { inputTokens: 3210, cacheReadTokens: 3000, cacheWriteTokens: 200, outputTokens: 57 },
    })
  })

  it('reads a count_tokens answer and refuses a stream without its start', () => {
    expect(
      parseResponse('anthropic.count_tokens', '{"input_tokens":512}', { streamed: false }),
    ).toMatchObject({
      usage: { inputTokens: 512, cacheReadTokens: 0 },
    })
    expect(
      parseResponse('anthropic.messages', 'event: ping\ndata: {}\n\n', { streamed: true }),
    ).toMatchObject({
      ok: false,
    })
  })
})
