import { once } from 'node:events'
import type { IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import type { WsClose, WsFrame, WsOpen } from './events.js'
import { type MockProvider, signal, startMockProvider } from './mock-provider.test-helper.js'
import { type RecordingRelay, startRecordingRelay } from './relay-client.test-helper.js'

let mock: MockProvider
let rec: RecordingRelay

beforeAll(async () => {
  mock = await startMockProvider()
  rec = await startRecordingRelay({ upstreams: { openai: `${mock.url}/gw` } })
})
afterAll(async () => {
  await rec.relay.close()
  await mock.close()
})

async function bodyOf(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function wsUrl(httpUrl: string, path: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}${path}`
}

describe('the WebSocket relay (OpenAI Responses)', () => {
  it('relays messages both ways as sent and records each one, without credentials', async () => {
    const upstreamSaw = signal<{ url: string; authorization: string | undefined; protocol: string }>()
    mock.onSocket = (socket, request) => {
      upstreamSaw.resolve({
        url: request.url ?? '',
        authorization: request.headers.authorization,
        protocol: socket.protocol,
      })
      socket.on('message', (data, binary) => {
        if (binary) socket.send(Buffer.concat([Buffer.from([0xff]), data as Buffer]), { binary: true })
        else socket.send(`{"type":"response.completed","echo":${data.toString()}}`)
      })
    }
    const before = rec.events.length
    const client = new WebSocket(wsUrl(rec.relay.url, '/v1/responses'), ['realtime'], {
      headers: {
        authorization: 'Bearer sk-ws-secret-0123456789',
        'openai-beta': 'responses_websockets=2026-02-06',
      },
    })
    await once(client, 'open')
    expect(client.protocol).toBe('realtime')
    const text = '{"type":"response.create","input":[]}'
    client.send(text)
    const [reply, replyBinary] = (await once(client, 'message')) as [Buffer, boolean]
    expect(replyBinary).toBe(false)
    expect(reply.toString()).toBe(`{"type":"response.completed","echo":${text}}`)
    client.send(Buffer.from([1, 2, 3]))
    const [binaryReply, isBinary] = (await once(client, 'message')) as [Buffer, boolean]
    expect(isBinary).toBe(true)
    expect([...binaryReply]).toEqual([0xff, 1, 2, 3])
    client.close(1000)
    await once(client, 'close')

    const saw = await upstreamSaw.promise
    expect(saw).toEqual({
      url: '/gw/v1/responses',
      authorization: 'Bearer sk-ws-secret-0123456789',
      protocol: 'realtime',
    })

    const events = (await rec.recorded(before + 6)).slice(before)
    const [open, ...rest] = events as [WsOpen, ...Array<WsFrame | WsClose>]
    expect(open).toMatchObject({
      kind: 'ws-open',
      provider: 'openai',
      endpoint: 'openai.responses',
      path: '/v1/responses',
    })
    expect(open.requestHeaders['openai-beta']).toBe('responses_websockets=2026-02-06')
    expect(JSON.stringify(events)).not.toContain('sk-ws-secret')
    const frames = rest.filter((e): e is WsFrame => e.kind === 'ws')
    expect(
      frames.map((f) => [f.connection, f.direction, f.binary, Buffer.from(f.data!).toString('hex')]),
    ).toEqual([
      [open.connection, 'to-upstream', false, Buffer.from(text).toString('hex')],
      [open.connection, 'to-client', false, reply.toString('hex')],
      [open.connection, 'to-upstream', true, '010203'],
      [open.connection, 'to-client', true, 'ff010203'],
    ])
    expect(rest.at(-1)).toMatchObject({ kind: 'ws-close', connection: open.connection, code: 1000 })
  })

  it('closes the client with the code the upstream closed with, and records it', async () => {
    mock.onSocket = (socket) => socket.on('message', () => socket.close(4001, 'done'))
    const before = rec.events.length
    const client = new WebSocket(wsUrl(rec.relay.url, '/v1/responses'))
    await once(client, 'open')
    client.send('{}')
    const [code, reason] = (await once(client, 'close')) as [number, Buffer]
    expect([code, reason.toString()]).toEqual([4001, 'done'])
    const events = (await rec.recorded(before + 3)).slice(before)
    expect(events.map((e) => e.kind)).toEqual(['ws-open', 'ws', 'ws-close'])
    expect(events[2]).toMatchObject({ code: 4001 })
  })

  it('relays an upstream refusal of the upgrade as the upstream answered it', async () => {
    mock.refuseUpgrade = 401
    try {
      const client = new WebSocket(wsUrl(rec.relay.url, '/v1/responses'))
      client.on('error', () => {})
      const [, response] = (await once(client, 'unexpected-response')) as [unknown, IncomingMessage]
      expect(response.statusCode).toBe(401)
      expect((await bodyOf(response)).toString()).toBe('Unauthorized')
      client.terminate()
    } finally {
      mock.refuseUpgrade = undefined
    }
  })

  it('answers 502 in OpenAI shape naming the host when the upstream cannot be reached', async () => {
    const gone = await startMockProvider()
    const host = gone.host
    await gone.close()
    const relay = await startRecordingRelay({ upstreams: { openai: gone.url } })
    try {
      const client = new WebSocket(wsUrl(relay.relay.url, '/v1/responses'))
      client.on('error', () => {})
      const [, response] = (await once(client, 'unexpected-response')) as [unknown, IncomingMessage]
      expect(response.statusCode).toBe(502)
      const body = JSON.parse((await bodyOf(response)).toString())
      expect(body.error.message).toContain(host)
      client.terminate()
    } finally {
      await relay.relay.close()
    }
  })
})
