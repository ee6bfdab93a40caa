import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { DIAGNOSIS_BETA } from './diagnose.js'
import type { HttpExchange } from './events.js'
import {
  type MockProvider,
  type MockRequest,
  signal,
  startMockProvider,
} from './mock-provider.test-helper.js'
import { type RecordingRelay, send, startRecordingRelay } from './relay-client.test-helper.js'

let mock: MockProvider
let diagnosing: RecordingRelay
let plain: RecordingRelay
let responses = 0

beforeAll(async () => {
  mock = await startMockProvider()
  mock.handler = answerWithIds
  const upstreams = { anthropic: mock.url, openai: mock.url, gemini: mock.url }
  diagnosing = await startRecordingRelay({ upstreams, diagnose: true })
  plain = await startRecordingRelay({ upstreams })
})
afterAll(async () => {
  await diagnosing.relay.close()
  await plain.relay.close()
  await mock.close()
})
afterEach(() => {
  mock.requests.length = 0
  mock.handler = answerWithIds
})

/** Answers each request with a fresh id: `msg_<n>` on the Messages path, `resp_<n>` elsewhere. */
function answerWithIds(request: MockRequest, res: import('node:http').ServerResponse): void {
  responses++
  const id = request.url.startsWith('/v1/messages') ? `msg_${responses}` : `resp_${responses}`
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ id, usage: { input_tokens: 1, output_tokens: 1 } }))
}

function lastId(): string {
  return `${mock.requests.at(-1)?.url.startsWith('/v1/messages') ? 'msg' : 'resp'}_${responses}`
}

function anthropicBody(firstUserText: string): string {
  return `{"model":"claude-x",  "system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":"${firstUserText}"}]}`
}

function responsesBody(firstUserText: string, extra = ''): string {
  return `{"model":"gpt-x","instructions":"be brief",${extra}"input":[{"role":"user","content":"${firstUserText}"}]}`
}

const ANTHROPIC = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }

function received(index: number): MockRequest {
  const got = mock.requests[index]
  if (got === undefined) throw new Error(`the mock has no request ${index}`)
  return got
}

function json(request: MockRequest): Record<string, unknown> {
  return JSON.parse(request.body.toString('utf8'))
}

describe('startRelay with diagnose', () => {
  it('adds the beta to the anthropic-beta sent and names the previous message from the second request on', async () => {
    const headers = {
      ...ANTHROPIC,
      'anthropic-beta': 'prompt-caching-2024-07-31',
      'x-claude-code-session-id': 's1',
    }
    const body = anthropicBody('hello')
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body })
    const firstId = lastId()
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body })

    const first = received(0)
    expect(first.headers['anthropic-beta']).toBe(`prompt-caching-2024-07-31,${DIAGNOSIS_BETA}`)
    // No previous response: the body goes as sent.
    expect(first.body.toString('utf8')).toBe(body)
    const second = received(1)
    expect(second.headers['anthropic-beta']).toBe(`prompt-caching-2024-07-31,${DIAGNOSIS_BETA}`)
    // The member is spliced in: every byte the client wrote stays as written.
    expect(second.body.toString('utf8')).toBe(
      `${body.slice(0, -1)},"diagnostics":{"previous_message_id":"${firstId}"}}`,
    )
    expect(second.headers['content-length']).toBe(String(second.body.byteLength))
  })

  it('adds the beta header when none was sent, and keeps conversations apart', async () => {
    const a = { ...ANTHROPIC, 'x-claude-code-session-id': 'conv-a' }
    const b = { ...ANTHROPIC, 'x-claude-code-session-id': 'conv-b' }
    await send(`${diagnosing.relay.url}/v1/messages`, { headers: a, body: anthropicBody('a') })
    const aId = lastId()
    await send(`${diagnosing.relay.url}/v1/messages`, { headers: b, body: anthropicBody('b') })
    await send(`${diagnosing.relay.url}/v1/messages`, { headers: a, body: anthropicBody('a') })
    expect(received(0).headers['anthropic-beta']).toBe(DIAGNOSIS_BETA)
    expect(json(received(1)).diagnostics).toBeUndefined()
    expect(json(received(2)).diagnostics).toEqual({ previous_message_id: aId })
  })

  it('takes the previous message id from a streamed response, which still streams chunk by chunk', async () => {
    const first = Buffer.from(
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_streamed","usage":{"input_tokens":5}}}\n\n',
    )
    const rest = Buffer.from('event: message_stop\ndata: {"type":"message_stop"}\n\n')
    const clientGotFirst = signal()
    mock.handler = async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(first)
      await clientGotFirst.promise
      res.end(rest)
    }
    const headers = { ...ANTHROPIC, 'x-claude-code-session-id': 'streamed' }
    const response = await request(`${diagnosing.relay.url}/v1/messages`, {
      method: 'POST',
      headers,
      body: anthropicBody('stream please'),
    })
    const chunks: Buffer[] = []
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer)
      if (Buffer.concat(chunks).length >= first.length) clientGotFirst.resolve()
    }
    expect(Buffer.concat(chunks).equals(Buffer.concat([first, rest]))).toBe(true)

    mock.handler = answerWithIds
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body: anthropicBody('stream please') })
    expect(json(received(1)).diagnostics).toEqual({ previous_message_id: 'msg_streamed' })
  })

  it('names the comparison response for OpenAI Responses from the second request on, merged into prompt_cache_options', async () => {
    const headers = { 'content-type': 'application/json', session_id: 'codex-1' }
    await send(`${diagnosing.relay.url}/v1/responses`, { headers, body: responsesBody('hi') })
    const firstId = lastId()
    const withOptions = responsesBody('hi', '"prompt_cache_options":{"retention":"24h"},')
    await send(`${diagnosing.relay.url}/v1/responses`, { headers, body: withOptions })

    expect(received(0).body.toString('utf8')).toBe(responsesBody('hi'))
    expect(received(0).headers['anthropic-beta']).toBeUndefined()
    expect(json(received(1)).prompt_cache_options).toEqual({
      retention: '24h',
      comparison_response_id: firstId,
    })
    expect(received(1).headers['content-length']).toBe(String(received(1).body.byteLength))
  })

  it('leaves a previous id the client set itself', async () => {
    const headers = { ...ANTHROPIC, 'x-claude-code-session-id': 'own-id' }
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body: anthropicBody('x') })
    const own = anthropicBody('x').replace(
      '"model"',
      '"diagnostics":{"previous_message_id":"msg_own"},"model"',
    )
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body: own })
    expect(received(1).body.toString('utf8')).toBe(own)
  })

  it.each([
    ['gzip', gzipSync, gunzipSync],
    ['br', brotliCompressSync, brotliDecompressSync],
  ] as const)(
    'decodes a %s request body, edits it and encodes it again the same way',
    async (coding, pack, unpack) => {
      const headers = {
        ...ANTHROPIC,
        'content-encoding': coding,
        'x-claude-code-session-id': `packed-${coding}`,
      }
      const body = anthropicBody('packed')
      await send(`${diagnosing.relay.url}/v1/messages`, { headers, body: pack(Buffer.from(body)) })
      const firstId = lastId()
      await send(`${diagnosing.relay.url}/v1/messages`, { headers, body: pack(Buffer.from(body)) })

      const second = received(1)
      expect(second.headers['content-encoding']).toBe(coding)
      expect(second.headers['content-length']).toBe(String(second.body.byteLength))
      expect(JSON.parse(unpack(second.body).toString('utf8')).diagnostics).toEqual({
        previous_message_id: firstId,
      })
    },
  )

  it('forwards a body that is not JSON unchanged, beta header and all', async () => {
    const body = Buffer.from('not json {')
    const headers = { ...ANTHROPIC, 'anthropic-beta': 'x', 'x-claude-code-session-id': 'broken' }
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body })
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body })
    expect(received(1).body.equals(body)).toBe(true)
    expect(received(1).headers['anthropic-beta']).toBe('x')
  })

  it('records the request as the client sent it', async () => {
    const headers = { ...ANTHROPIC, 'x-claude-code-session-id': 'recorded' }
    const body = anthropicBody('rec')
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body })
    await send(`${diagnosing.relay.url}/v1/messages`, { headers, body })
    await diagnosing.relay.idle()
    const exchange = diagnosing.events.at(-1) as HttpExchange
    expect(Buffer.from(exchange.requestBody?.bytes ?? []).toString('utf8')).toBe(body)
    expect(json(received(1)).diagnostics).toBeDefined()
  })
})

describe('startRelay without diagnose', () => {
  it('forwards every byte as sent, second request of a conversation included', async () => {
    const headers = { ...ANTHROPIC, 'anthropic-beta': 'y', 'x-claude-code-session-id': 'plain' }
    const body = Buffer.from(anthropicBody('plain'))
    await send(`${plain.relay.url}/v1/messages`, { headers, body })
    await send(`${plain.relay.url}/v1/messages`, { headers, body })
    const packed = gzipSync(Buffer.from(responsesBody('plain')))
    const openai = { 'content-type': 'application/json', 'content-encoding': 'gzip', session_id: 'plain' }
    await send(`${plain.relay.url}/v1/responses`, { headers: openai, body: packed })
    await send(`${plain.relay.url}/v1/responses`, { headers: openai, body: packed })

    expect(received(1).body.equals(body)).toBe(true)
    expect(received(1).headers['anthropic-beta']).toBe('y')
    expect(received(3).body.equals(packed)).toBe(true)
  })
})
