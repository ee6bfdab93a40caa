import { once } from 'node:events'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { readTraffic, type TrafficFixture } from '../../test/fixtures/traffic/traffic.js'
import { type ClosablePromptStore, memoryStore } from '../compile/index.js'
import { createRecorder, type Recorder } from './recorder.js'
import { type Relay, startRelay } from './relay/index.js'
import { type MockProvider, startMockProvider } from './relay/mock-provider.test-helper.js'

// Codex's WebSocket turns (test/fixtures/traffic/codex@0.171.0/websocket), replayed through a
// real relay against a WebSocket mock into a recorder on a memory store: each turn is a call
// like the HTTP request with its whole input would have made, a prewarm is no call, and a chain
// joined midway is recorded partial.

const CREDENTIAL = 'sk-proj-CREDENTIALxCREDENTIALx0123456789'

let mock: MockProvider
let relay: Relay
let store: ClosablePromptStore
let recorder: Recorder
let closed = 0
let waiters: Array<{ closes: number; resolve: () => void }> = []
let captured: TrafficFixture[]
let nextId = 0

beforeAll(async () => {
  captured = (await readTraffic())
    .find((r) => r.name === 'codex@0.171.0')!
    .websocket.map((f) => f.fixture as TrafficFixture)
  mock = await startMockProvider()
  relay = await startRelay({
    upstreams: { openai: mock.url },
    onExchange: async (event) => {
      await recorder.handle(event)
      if (event.kind === 'ws-close') closed++
      for (const waiter of waiters.filter((w) => closed >= w.closes)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    },
  })
  // The mock answers each response.create with its own response id, one output message and usage.
  mock.onSocket = (socket) =>
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString())
      if (message.type !== 'response.create') return
      const id = `resp_${++nextId}`
      const item = {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: `said ${id}` }],
      }
      const usage = { input_tokens: 2000, output_tokens: 3, input_tokens_details: { cached_tokens: 1024 } }
      socket.send(JSON.stringify({ type: 'response.created', response: { id, output: [] } }))
      socket.send(JSON.stringify({ type: 'response.output_item.done', output_index: 0, item }))
      socket.send(JSON.stringify({ type: 'response.completed', response: { id, output: [item], usage } }))
    })
  // Over HTTP, the same answer as JSON.
  mock.handler = (_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ id: 'resp_http', output: [], usage: { input_tokens: 2000, output_tokens: 3 } }))
  }
})

afterAll(async () => {
  await relay?.close()
  await mock?.close()
})

beforeEach(() => {
  store = memoryStore()
  closed = 0
  waiters = []
  recorder = createRecorder({
    store,
    harness: 'codex',
    key: 'a per-user key',
    mask: (text) => text,
    count: (text) => Math.ceil(text.length / 4),
    tokenizer: 'estimate',
    now: () => new Date('2026-12-06T04:00:00Z'),
  })
})

/** Resolves once the recorder has handled the close of `closes` connections (no sleeps: it waits for the events). */
function closesHandled(closes: number): Promise<void> {
  if (closed >= closes) return Promise.resolve()
  return new Promise((resolve) => waiters.push({ closes, resolve }))
}

/** The upgrade headers Codex sent, our credential in place of the redacted one. */
function headersOf(fixture: TrafficFixture): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of fixture.request.headers) {
    if (/^(host|connection|upgrade|sec-websocket-.*|content-length)$/i.test(name)) continue
    headers[name.toLowerCase()] = value.replace('REDACTED', CREDENTIAL)
  }
  return headers
}

function messageOf(fixture: TrafficFixture): Record<string, unknown> {
  return JSON.parse(fixture.request.body)
}

/** One WebSocket connection through the relay, sending each message after the previous one completed. */
async function converse(messages: Record<string, unknown>[]): Promise<string[]> {
  const client = new WebSocket(`${relay.url.replace(/^http/, 'ws')}/v1/responses`, {
    headers: headersOf(captured[0]!),
  })
  await once(client, 'open')
  const ids: string[] = []
  for (const message of messages) {
    const completed = new Promise<string>((resolve) => {
      const listen = (data: Buffer) => {
        const event = JSON.parse(data.toString())
        if (event.type !== 'response.completed') return
        client.off('message', listen)
        resolve(event.response.id)
      }
      client.on('message', listen)
    })
    // A chained message names the response before it, as Codex does.
    const previous = message.previous_response_id === 'previous' ? { previous_response_id: ids.at(-1) } : {}
    client.send(JSON.stringify({ ...message, ...previous }))
    ids.push(await completed)
  }
  client.close(1000)
  await once(client, 'close')
  return ids
}

/** The same turn sent over HTTP with its whole input. */
async function overHttp(message: Record<string, unknown>): Promise<void> {
  const { type: _type, ...body } = message
  const response = await fetch(`${relay.url}/v1/responses`, {
    method: 'POST',
    headers: { ...headersOf(captured[0]!), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  await response.arrayBuffer()
}

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })

describe('record: OpenAI Responses turns over a WebSocket', () => {
  it('records the captured Codex turn as a call with parts and usage; the prewarm is no call', async () => {
    expect(captured.map((f) => messageOf(f).generate)).toEqual([false, undefined])
    await converse(captured.map(messageOf))
    await closesHandled(1)
    const summary = recorder.summary()
    expect([summary.requests, summary.recorded, summary.sessions.length]).toEqual([1, 1, 1])
    const [call] = await store.calls(summary.sessions[0]!)
    expect(call).toMatchObject({
      harness: 'codex',
      harnessVersion: '0.171.0',
      endpoint: 'openai.responses',
      model: 'gpt-5',
      status: 200,
      streamed: true,
      usage: { inputTokens: 2000, cacheReadTokens: 1024, outputTokens: 3 },
    })
    expect(call!.partial).toBeUndefined()
    expect(call!.parts.map((p) => p.section)).toContain('message:1')
    expect(call!.parts.filter((p) => p.section.startsWith('tool:')).length).toBeGreaterThan(0)
    expect(JSON.stringify(await store.calls(summary.sessions[0]!))).not.toContain('CREDENTIALx')
  })

  it('rebuilds a chained turn into the whole input an HTTP request would have sent', async () => {
    const first = messageOf(captured[1]!)
    const [firstId] = await converse([
      first,
      { ...first, input: [user('and then?')], previous_response_id: 'previous' },
    ])
    // The HTTP request Codex would have sent for the second turn: all of it.
    const said = {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: `said ${firstId}` }],
    }
    await overHttp({ ...first, input: [...(first.input as unknown[]), said, user('and then?')] })
    await closesHandled(1)
    await relay.idle()
    const summary = recorder.summary()
    expect(summary.recorded).toBe(3)
    const [one, two, http] = await store.calls(summary.sessions[0]!)
    expect(two!.partial).toBeUndefined()
    expect(two!.prefixHash).toBe(http!.prefixHash)
    expect(two!.parts).toEqual(http!.parts)
    expect(two!.messageHashes).toEqual(http!.messageHashes)
    expect(two!.messageHashes.slice(0, one!.messageHashes.length)).toEqual(one!.messageHashes)
    expect(two!.messageHashes.length).toBe(one!.messageHashes.length + 2)
    expect([one!.version, two!.version, http!.version]).toEqual([1, 1, 1])
  })

  it('records a chain joined midway as partial, with no new version', async () => {
    const first = messageOf(captured[1]!)
    await converse([first])
    // A second connection continues a response it never saw (the proxy joined the chain there).
    await converse([{ ...first, input: [user('more')], previous_response_id: 'resp_elsewhere' }])
    await closesHandled(2)
    const summary = recorder.summary()
    expect([summary.recorded, summary.sessions.length]).toEqual([2, 1])
    const [whole, joined] = await store.calls(summary.sessions[0]!)
    expect(whole!.partial).toBeUndefined()
    expect(joined!.partial).toBe(true)
    expect(joined!.version).toBe(whole!.version)
    expect(joined!.prefixHash).not.toBe(whole!.prefixHash)
    expect(await store.history(summary.sessions[0]!)).toHaveLength(1)
    expect(summary.colder).toEqual([])
  })
})
