import { request as httpRequest } from 'node:http'
import { createServer } from 'node:net'
import { gzipSync, zstdCompressSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { HttpExchange } from './events.js'
import { type MockProvider, signal, startMockProvider } from './mock-provider.test-helper.js'
import { type RecordingRelay, send, startRecordingRelay } from './relay-client.test-helper.js'

const SECRETS = {
  authorization: 'Bearer sk-ant-test-authorization-0123456789',
  'x-api-key': 'sk-test-x-api-key-0123456789',
  'x-goog-api-key': 'AIzaTestGoogApiKey0123456789',
  cookie: 'session=cookie-secret-0123456789',
}

let mock: MockProvider
let rec: RecordingRelay

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

beforeAll(async () => {
  mock = await startMockProvider()
  // One mock behind three gateway prefixes: the path the mock sees names the provider.
  rec = await startRecordingRelay({
    upstreams: {
      anthropic: `${mock.url}/anthropic/`,
      openai: `${mock.url}/openai`,
      gemini: `${mock.url}/gemini`,
    },
  })
})
afterAll(async () => {
  await rec.relay.close()
  await mock.close()
})
afterEach(() => {
  mock.requests.length = 0
  mock.handler = (_request, res) => res.end('{}')
})

async function lastExchange(): Promise<HttpExchange> {
  await rec.relay.idle()
  const event = rec.events.at(-1)
  if (event?.kind !== 'http') throw new Error('no HTTP exchange recorded')
  return event
}

describe('startRelay over HTTP', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(rec.relay.url).toBe(`http://127.0.0.1:${rec.relay.port}`)
  })

  it('relays a JSON request and response byte for byte, keeping the gateway prefix, and records both', async () => {
    const answer = Buffer.from('{"id":"msg_1","usage":{"input_tokens":12,  "output_tokens":3}}')
    mock.handler = (_request, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1' })
      res.end(answer)
    }
    const body = Buffer.from('{"model":"claude-x","system":[{"type":"text","text":"hi"}],  "messages":[]}')
    const got = await send(`${rec.relay.url}/v1/messages?beta=true`, {
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...SECRETS },
      body,
    })
    expect(got.status).toBe(201)
    expect(got.body.equals(answer)).toBe(true)
    expect(got.headers['x-request-id']).toBe('req_1')
    expect(mock.requests[0]?.url).toBe('/anthropic/v1/messages?beta=true')
    expect(mock.requests[0]?.body.equals(body)).toBe(true)
    // Credentials are forwarded as sent: the relay adds and removes none.
    expect(mock.requests[0]?.headers.authorization).toBe(SECRETS.authorization)
    expect(mock.requests[0]?.headers['x-api-key']).toBe(SECRETS['x-api-key'])

    const exchange = await lastExchange()
    expect(exchange).toMatchObject({
      kind: 'http',
      provider: 'anthropic',
      endpoint: 'anthropic.messages',
      method: 'POST',
      path: '/v1/messages?beta=true',
      status: 201,
      streamed: false,
      requestBody: { state: 'complete' },
      responseBody: { state: 'complete' },
    })
    expect(Buffer.from(exchange.requestBody!.bytes!).equals(body)).toBe(true)
    expect(Buffer.from(exchange.responseBody!.bytes!).equals(answer)).toBe(true)
    expect(exchange.startedAt).toBeLessThanOrEqual(exchange.firstByteAt!)
    expect(exchange.firstByteAt).toBeLessThanOrEqual(exchange.endedAt)
  })

  it('streams server-sent events chunk by chunk: the first reaches the client before the mock sends the rest', async () => {
    const first = Buffer.from('event: message_start\ndata: {"type":"message_start"}\n\n')
    const rest = Buffer.from('event: message_stop\ndata: {"type":"message_stop"}\n\n')
    const clientGotFirst = signal()
    mock.handler = async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(first)
      await clientGotFirst.promise
      res.end(rest)
    }
    const response = await request(`${rec.relay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01' },
      body: '{"stream":true}',
    })
    const chunks: Buffer[] = []
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer)
      if (Buffer.concat(chunks).length >= first.length) clientGotFirst.resolve()
    }
    expect(Buffer.concat(chunks).equals(Buffer.concat([first, rest]))).toBe(true)
    const exchange = await lastExchange()
    expect(exchange.streamed).toBe(true)
    expect(Buffer.from(exchange.responseBody!.bytes!).toString()).toBe(`${first}${rest}`)
  })

  it('passes the status and headers on before the first body byte: the client sees them while the model thinks', async () => {
    const clientGotHeaders = signal()
    mock.handler = async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-thinking': 'yes' })
      res.flushHeaders()
      await clientGotHeaders.promise
      res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n')
    }
    const response = await request(`${rec.relay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01' },
      body: '{"stream":true}',
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-thinking']).toBe('yes')
    clientGotHeaders.resolve()
    expect(await response.body.text()).toContain('message_stop')
  })

  it('passes a gzip-encoded response through as sent and records it decoded', async () => {
    const json = '{"id":"resp_1","usage":{"input_tokens":2048,"input_tokens_details":{"cached_tokens":1024}}}'
    const gzipped = gzipSync(json)
    mock.handler = (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      res.end(gzipped)
    }
    const got = await send(`${rec.relay.url}/v1/responses`, {
      headers: { authorization: SECRETS.authorization },
      body: '{}',
    })
    expect(got.headers['content-encoding']).toBe('gzip')
    expect(got.body.equals(gzipped)).toBe(true)
    expect(mock.requests[0]?.url).toBe('/openai/v1/responses')
    const exchange = await lastExchange()
    expect(exchange.endpoint).toBe('openai.responses')
    expect(exchange.responseBody).toMatchObject({
      state: 'complete',
      encoding: 'gzip',
      wireLength: gzipped.length,
    })
    expect(Buffer.from(exchange.responseBody!.bytes!).toString()).toBe(json)
  })

  it('forwards a zstd request body compressed and records it decoded', async () => {
    const json = JSON.stringify({ model: 'gpt-x', input: 'x'.repeat(5000) })
    const compressed = zstdCompressSync(json)
    await send(`${rec.relay.url}/v1/chat/completions`, {
      headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' },
      body: compressed,
    })
    expect(mock.requests[0]?.headers['content-encoding']).toBe('zstd')
    expect(mock.requests[0]?.body.equals(compressed)).toBe(true)
    const exchange = await lastExchange()
    expect(exchange.endpoint).toBe('openai.chat.completions')
    expect(exchange.requestBody).toMatchObject({
      state: 'complete',
      encoding: 'zstd',
      wireLength: compressed.length,
    })
    expect(Buffer.from(exchange.requestBody!.bytes!).toString()).toBe(json)
  })

  it('drops hop-by-hop headers both ways, and those the Connection header names', async () => {
    mock.handler = (_request, res) => {
      res.writeHead(200, {
        'x-normal': 'kept',
        'x-upstream-hop': 'dropped',
        connection: 'keep-alive, x-upstream-hop',
      })
      res.end('{}')
    }
    const got = await new Promise<{ headers: Record<string, unknown> }>((resolve, reject) => {
      const req = httpRequest(`${rec.relay.url}/v1/responses`, {
        method: 'POST',
        headers: {
          connection: 'keep-alive, x-client-hop',
          'x-client-hop': 'dropped',
          'keep-alive': 'timeout=5',
          te: 'trailers',
          'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
          'x-kept': 'yes',
        },
      })
      req.on('response', (res) => {
        res.resume()
        res.on('end', () => resolve({ headers: res.headers }))
      })
      req.on('error', reject)
      req.end('{}')
    })
    const seen = mock.requests[0]!.headers
    expect(seen['x-kept']).toBe('yes')
    for (const name of ['x-client-hop', 'keep-alive', 'te', 'proxy-authorization'])
      expect(seen[name]).toBeUndefined()
    expect(got.headers['x-normal']).toBe('kept')
    expect(got.headers['x-upstream-hop']).toBeUndefined()
  })

  it('records no credential: no secret header, no set-cookie, no key= query parameter', async () => {
    mock.handler = (_request, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'set-cookie': 'sid=set-cookie-secret-0123456789',
      })
      res.end('{"candidates":[]}')
    }
    const got = await send(
      `${rec.relay.url}/v1beta/models/gemini-2.5-pro:generateContent?key=AIzaQueryKeySecret0123&alt=json`,
      { headers: { ...SECRETS }, body: '{"contents":[]}' },
    )
    expect(got.headers['set-cookie']).toBe('sid=set-cookie-secret-0123456789')
    expect(mock.requests[0]?.url).toBe(
      '/gemini/v1beta/models/gemini-2.5-pro:generateContent?key=AIzaQueryKeySecret0123&alt=json',
    )
    const exchange = await lastExchange()
    expect(exchange.endpoint).toBe('gemini.generateContent')
    expect(exchange.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent?alt=json')
    const recorded = JSON.stringify(exchange)
    for (const secret of [...Object.values(SECRETS), 'set-cookie-secret', 'AIzaQueryKeySecret0123'])
      expect(recorded).not.toContain(secret)
    expect(exchange.requestHeaders).not.toHaveProperty('authorization')
    expect(exchange.responseHeaders).not.toHaveProperty('set-cookie')
  })

  it('forwards other paths unrecorded to the upstream of their provider, by headers and path', async () => {
    await send(`${rec.relay.url}/v1/models`, { headers: { 'x-api-key': SECRETS['x-api-key'] } })
    await send(`${rec.relay.url}/v1beta/models`)
    await send(`${rec.relay.url}/v1/models`, { headers: { authorization: SECRETS.authorization } })
    expect(mock.requests.map((r) => r.url)).toEqual([
      '/anthropic/v1/models',
      '/gemini/v1beta/models',
      '/openai/v1/models',
    ])
    await rec.relay.idle()
    const [a, g, o] = rec.events.slice(-3) as HttpExchange[]
    expect([a?.provider, g?.provider, o?.provider]).toEqual(['anthropic', 'gemini', 'openai'])
    for (const exchange of [a, g, o]) {
      expect(exchange?.endpoint).toBeUndefined()
      expect(exchange?.requestBody).toBeUndefined()
      expect(exchange?.responseBody).toBeUndefined()
    }
  })

  it('aborts the upstream request when the client leaves mid-stream', async () => {
    await rec.relay.idle()
    const before = rec.events.length
    const upstreamClosed = signal()
    const clientGotFirst = signal()
    mock.handler = async (_request, res) => {
      res.on('close', () => upstreamClosed.resolve())
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"n":1}\n\n')
      await clientGotFirst.promise
    }
    const req = httpRequest(`${rec.relay.url}/v1/responses`, { method: 'POST' })
    req.on('response', (res) => res.once('data', () => clientGotFirst.resolve()))
    req.on('error', () => {})
    req.end('{"stream":true}')
    await clientGotFirst.promise
    req.destroy()
    await upstreamClosed.promise
    const exchange = (await rec.recorded(before + 1))[before] as HttpExchange
    expect(exchange?.error).toBe('client-closed')
  })
})

describe('a failing upstream', () => {
  it('gives a 502 in each provider shape naming the host, and the relay keeps serving', async () => {
    const port = await closedPort()
    const dead = `http://127.0.0.1:${port}`
    const failing = await startRecordingRelay({
      upstreams: { anthropic: dead, openai: dead, gemini: `${mock.url}/gemini` },
    })
    try {
      const anthropic = await send(`${failing.relay.url}/v1/messages`, {
        headers: { 'x-api-key': SECRETS['x-api-key'] },
        body: '{}',
      })
      expect(anthropic.status).toBe(502)
      const a = JSON.parse(anthropic.body.toString())
      expect(a).toMatchObject({ type: 'error', error: { type: 'api_error' } })
      expect(a.error.message).toContain(`127.0.0.1:${port}`)
      expect(a.error.message).not.toContain(SECRETS['x-api-key'])

      const openai = await send(`${failing.relay.url}/v1/responses`, {
        headers: { authorization: SECRETS.authorization },
        body: '{}',
      })
      expect(openai.status).toBe(502)
      const o = JSON.parse(openai.body.toString())
      expect(o.error.message).toContain(`127.0.0.1:${port}`)
      expect(o.error.message).not.toContain('sk-ant')

      // The relay still serves: the Gemini upstream works.
      const fine = await send(`${failing.relay.url}/v1beta/models/g:streamGenerateContent?alt=sse`, {
        body: '{}',
      })
      expect(fine.status).toBe(200)
      await failing.relay.idle()
      const exchanges = failing.events as HttpExchange[]
      expect(exchanges.map((e) => [e.status, e.error])).toEqual([
        [502, 'ECONNREFUSED'],
        [502, 'ECONNREFUSED'],
        [200, undefined],
      ])
    } finally {
      await failing.relay.close()
    }
    const geminiDead = await startRecordingRelay({ upstreams: { gemini: dead } })
    try {
      const gemini = await send(`${geminiDead.relay.url}/v1beta/models/g:generateContent`, { body: '{}' })
      expect(gemini.status).toBe(502)
      const g = JSON.parse(gemini.body.toString())
      expect(g).toMatchObject({ error: { code: 502, status: 'UNAVAILABLE' } })
      expect(g.error.message).toContain(`127.0.0.1:${port}`)
    } finally {
      await geminiDead.relay.close()
    }
  })
})

describe('the record queue', () => {
  it('drops exchanges past its size while the recorder is busy, counting them, and never delays traffic', async () => {
    const release = signal()
    const recording = signal()
    const warnings: string[] = []
    const threeDropped = signal()
    const busy = await startRecordingRelay({
      upstreams: { openai: mock.url },
      queueSize: 1,
      onExchange: async () => {
        recording.resolve()
        await release.promise
      },
      onWarning: (message) => {
        warnings.push(message)
        if (warnings.length === 3) threeDropped.resolve()
      },
    })
    try {
      mock.handler = (_request, res) => res.end('{}')
      await send(`${busy.relay.url}/v1/responses`, { body: '{}' })
      await recording.promise // the first is being recorded: the recorder is now busy
      // Responses arrive although the recorder is stuck: one waits in the queue, three are dropped.
      for (let i = 0; i < 4; i++)
        expect((await send(`${busy.relay.url}/v1/responses`, { body: '{}' })).status).toBe(200)
      await threeDropped.promise
      expect(busy.relay.dropped).toBe(3)
      expect(warnings[2]).toContain('3 so far')
      release.resolve()
      await busy.relay.idle()
      expect(busy.events).toHaveLength(2)
    } finally {
      release.resolve()
      await busy.relay.close()
    }
  })

  it('keeps serving when the warning handler throws', async () => {
    const release = signal()
    const recording = signal()
    const throwing = await startRecordingRelay({
      upstreams: { openai: mock.url },
      queueSize: 1,
      onExchange: async () => {
        recording.resolve()
        await release.promise
      },
      onWarning: () => {
        throw new Error('a broken warning handler')
      },
    })
    try {
      await send(`${throwing.relay.url}/v1/responses`, { body: '{}' })
      await recording.promise
      for (let i = 0; i < 3; i++)
        expect((await send(`${throwing.relay.url}/v1/responses`, { body: '{}' })).status).toBe(200)
      // Each exchange is queued (or dropped) before its response's last byte leaves: two were dropped.
      expect(throwing.relay.dropped).toBe(2)
    } finally {
      release.resolve()
      await throwing.relay.close()
    }
  })
})
