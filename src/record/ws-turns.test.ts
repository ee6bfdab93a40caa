import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { HttpExchange, WsFrame, WsOpen } from './relay/events.js'
import { createWsTurns, type WsTurns } from './ws-turns.js'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

function openOf(connection: number): WsOpen {
  return {
    kind: 'ws-open',
    connection,
    provider: 'openai',
    endpoint: 'openai.responses',
    path: '/v1/responses',
    requestHeaders: { 'session-id': 's-1' },
    at: 0,
  }
}

function opened(): WsTurns {
  const turns = createWsTurns()
  turns.open(openOf(1))
  return turns
}

let clock = 0
function frame(direction: WsFrame['direction'], message: unknown, connection = 1): WsFrame {
  return {
    kind: 'ws',
    connection,
    direction,
    data: encoder.encode(JSON.stringify(message)),
    binary: false,
    at: ++clock,
  }
}

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
const said = (text: string) => ({
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text }],
})
const usage = { input_tokens: 10, output_tokens: 2, input_tokens_details: { cached_tokens: 4 } }

/** Sends a `response.create` and the server's answer; returns what each frame yielded. */
function turn(turns: WsTurns, message: Record<string, unknown>, id: string, output: unknown[], on = 1) {
  const yielded = [turns.frame(frame('to-upstream', { type: 'response.create', ...message }, on))]
  yielded.push(
    turns.frame(frame('to-client', { type: 'response.created', response: { id, output: [] } }, on)),
  )
  for (const item of output)
    yielded.push(turns.frame(frame('to-client', { type: 'response.output_item.done', item }, on)))
  yielded.push(
    turns.frame(frame('to-client', { type: 'response.completed', response: { id, output, usage } }, on)),
  )
  return yielded
}

function bodyOf(exchange: HttpExchange): Record<string, unknown> {
  return JSON.parse(decoder.decode(exchange.requestBody!.bytes))
}

describe('WebSocket turns (OpenAI Responses)', () => {
  it('pairs a response.create with the server events until response.completed, as one exchange', () => {
    const turns = opened()
    const yielded = turn(turns, { model: 'gpt-5', input: [user('hello')] }, 'resp_1', [said('hi')])
    expect(yielded.slice(0, -1).flat()).toEqual([])
    const [done] = yielded.at(-1)!
    expect(done!.partial).toBe(false)
    expect(done!.exchange).toMatchObject({
      kind: 'http',
      endpoint: 'openai.responses',
      status: 200,
      streamed: true,
      requestHeaders: { 'session-id': 's-1' },
    })
    expect(done!.exchange.firstByteAt).toBeGreaterThan(done!.exchange.startedAt)
    expect(bodyOf(done!.exchange)).toEqual({ model: 'gpt-5', input: [user('hello')] })
    const response = JSON.parse(decoder.decode(done!.exchange.responseBody!.bytes))
    expect(response).toMatchObject({ id: 'resp_1', usage })
  })

  it('skips a prewarm (generate: false), yet a later turn continues its response', () => {
    const turns = opened()
    const dev = { type: 'message', role: 'developer', content: 'rules' }
    expect(turn(turns, { input: [dev], generate: false }, 'resp_w', []).flat()).toEqual([])
    const [done] = turn(turns, { input: [user('go')], previous_response_id: 'resp_w' }, 'resp_2', []).flat()
    expect(done!.partial).toBe(false)
    expect(bodyOf(done!.exchange).input).toEqual([dev, user('go')])
  })

  it('rebuilds a chained turn: the previous full input, its output items, then the new input', () => {
    const turns = opened()
    turn(turns, { model: 'gpt-5', input: [user('one')] }, 'resp_1', [said('a')])
    turn(turns, { model: 'gpt-5', input: [user('two')], previous_response_id: 'resp_1' }, 'resp_2', [
      said('b'),
    ])
    const [third] = turn(
      turns,
      { model: 'gpt-5', input: [user('three')], previous_response_id: 'resp_2' },
      'resp_3',
      [],
    ).flat()
    const body = bodyOf(third!.exchange)
    expect(body.input).toEqual([user('one'), said('a'), user('two'), said('b'), user('three')])
    expect(body).not.toHaveProperty('previous_response_id')
    expect(body).not.toHaveProperty('type')
    expect(third!.partial).toBe(false)
  })

  it('uses the output items streamed when response.completed lists none', () => {
    const turns = opened()
    turns.frame(frame('to-upstream', { type: 'response.create', input: [user('one')] }))
    turns.frame(frame('to-client', { type: 'response.output_item.done', item: said('a') }))
    turns.frame(frame('to-client', { type: 'response.completed', response: { id: 'r1', output: [] } }))
    turns.frame(frame('to-upstream', { type: 'response.create', input: [], previous_response_id: 'r1' }))
    const [done] = turns.frame(frame('to-client', { type: 'response.completed', response: { id: 'r2' } }))
    expect(bodyOf(done!.exchange).input).toEqual([user('one'), said('a')])
  })

  it('marks partial a turn continuing a response not seen on this connection, and the chain after it', () => {
    const turns = opened()
    const [joined] = turn(turns, { input: [user('two')], previous_response_id: 'elsewhere' }, 'r2', [
      said('b'),
    ]).flat()
    expect(joined!.partial).toBe(true)
    expect(bodyOf(joined!.exchange)).toEqual({ input: [user('two')] })
    const [next] = turn(turns, { input: [user('three')], previous_response_id: 'r2' }, 'r3', []).flat()
    expect(next!.partial).toBe(true)
    // Another connection's responses are not this one's.
    turns.open(openOf(2))
    expect(turn(turns, { input: [user('one')] }, 'r9', [], 2).flat()[0]!.partial).toBe(false)
    expect(turn(turns, { input: [], previous_response_id: 'r9' }, 'r4', []).flat()[0]!.partial).toBe(true)
  })

  it('ends a turn on an error event with its status, and records unanswered turns at close', () => {
    const turns = opened()
    turns.frame(frame('to-upstream', { type: 'response.create', input: [user('one')] }))
    const [failed] = turns.frame(frame('to-client', { type: 'error', error: { status: 429 } }))
    expect(failed!.exchange.status).toBe(429)
    expect(failed!.exchange.responseBody).toBeUndefined()
    turns.frame(frame('to-upstream', { type: 'response.create', input: [user('two')] }))
    turns.frame(frame('to-upstream', { type: 'response.create', input: [user('three')] }))
    turns.frame(frame('to-client', { type: 'response.created', response: { id: 'r2' } }))
    const left = turns.close({ kind: 'ws-close', connection: 1, code: 1006, at: ++clock })
    expect(left.map((t) => [t.exchange.status, bodyOf(t.exchange).input])).toEqual([
      [200, [user('two')]],
      [0, [user('three')]],
    ])
  })

  it('ignores binary frames, other client messages and unknown connections; a truncated message is a turn', () => {
    const turns = opened()
    expect(turns.frame({ ...frame('to-upstream', {}), binary: true })).toEqual([])
    expect(turns.frame(frame('to-upstream', { type: 'session.update' }))).toEqual([])
    expect(turns.frame(frame('to-upstream', { type: 'response.create' }, 7))).toEqual([])
    turns.frame({
      kind: 'ws',
      connection: 1,
      direction: 'to-upstream',
      binary: false,
      truncated: true,
      at: 1,
    })
    const [done] = turns.frame(frame('to-client', { type: 'response.completed', response: { id: 'r' } }))
    expect(done!.exchange.requestBody).toEqual({ state: 'truncated', wireLength: 0 })
  })

  it('never throws on untrusted frames, and yields at most one turn per response.create', () => {
    const event = fc.oneof(
      fc.constantFrom('response.created', 'response.output_item.done', 'response.completed', 'error'),
      fc.string({ maxLength: 8 }),
    )
    const message = fc.oneof(
      fc.record({
        type: event,
        response: fc.option(fc.record({ id: fc.constantFrom('a', 'b'), output: fc.jsonValue() })),
        item: fc.jsonValue(),
      }),
      fc.record({
        type: fc.constant('response.create'),
        input: fc.oneof(fc.string({ maxLength: 8 }), fc.array(fc.jsonValue(), { maxLength: 3 })),
        previous_response_id: fc.option(fc.constantFrom('a', 'b')),
        generate: fc.option(fc.boolean()),
      }),
      fc.jsonValue(),
    )
    const frames = fc.array(
      fc.record({
        upstream: fc.boolean(),
        data: fc.oneof(
          message.map((m) => encoder.encode(JSON.stringify(m))),
          fc.uint8Array({ maxLength: 20 }),
        ),
      }),
      { maxLength: 30 },
    )
    fc.assert(
      fc.property(frames, (sent) => {
        const turns = opened()
        let yielded = 0
        for (const { upstream, data } of sent)
          yielded += turns.frame({
            kind: 'ws',
            connection: 1,
            direction: upstream ? 'to-upstream' : 'to-client',
            data,
            binary: false,
            at: 1,
          }).length
        yielded += turns.close({ kind: 'ws-close', connection: 1, code: 1000, at: 2 }).length
        const creates = sent.filter(({ upstream, data }) => {
          if (!upstream) return false
          try {
            return JSON.parse(decoder.decode(data)).type === 'response.create'
          } catch {
            return false
          }
        }).length
        expect(yielded).toBeLessThanOrEqual(creates)
      }),
      { numRuns: 200 },
    )
  })
})
