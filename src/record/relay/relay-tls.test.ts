import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { startConnectProxy } from './connect-proxy.test-helper.js'
import type { HttpExchange } from './events.js'
import { type MockProvider, signal, startMockProvider } from './mock-provider.test-helper.js'
import { type RecordingRelay, send, startRecordingRelay } from './relay-client.test-helper.js'
import { hasOpenssl, makeTestCa, type TestCa } from './test-ca.test-helper.js'

// The throwaway CA is made with the openssl command line; without it these
// tests cannot run, which CI does not accept.
const OPENSSL = hasOpenssl()
if (!OPENSSL && process.env.CI === 'true')
  throw new Error('openssl is missing: the relay TLS tests need it under CI')
const CHILD = fileURLToPath(new URL('./relay-child.test-helper.ts', import.meta.url))

describe.skipIf(!OPENSSL)('startRelay over TLS (a test CA; skipped without the openssl command)', () => {
  let ca: TestCa
  let mock: MockProvider
  let rec: RecordingRelay

  beforeAll(async () => {
    ca = makeTestCa()
    mock = await startMockProvider({ key: ca.key, cert: ca.cert })
    // The CA reaches the relay through its explicit `ca` option here; the
    // NODE_EXTRA_CA_CERTS route is the child-process test below.
    rec = await startRecordingRelay({
      ca: ca.ca,
      upstreams: { anthropic: mock.url, openai: mock.url, gemini: mock.url },
    })
  })
  afterAll(async () => {
    await rec?.relay.close()
    await mock?.close()
    if (ca !== undefined) rmSync(ca.dir, { recursive: true, force: true })
  })

  it('relays JSON byte for byte to a TLS upstream verified by the CA', async () => {
    const answer = Buffer.from('{"usageMetadata":{"promptTokenCount":9,"cachedContentTokenCount":0}}')
    mock.handler = (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(answer)
    }
    const got = await send(`${rec.relay.url}/v1beta/models/gemini-x:generateContent`, {
      headers: { 'x-goog-api-key': 'AIzaTlsSecret0123456789' },
      body: '{"contents":[]}',
    })
    expect(got.status).toBe(200)
    expect(got.body.equals(answer)).toBe(true)
    expect(mock.requests.at(-1)?.headers.host).toBe(mock.host)
  })

  it('streams the first SSE chunk before the TLS upstream sends the rest', async () => {
    const first = Buffer.from('data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}]}\r\n\r\n')
    const rest = Buffer.from('data: {"usageMetadata":{"promptTokenCount":9}}\r\n\r\n')
    const clientGotFirst = signal()
    mock.handler = async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(first)
      await clientGotFirst.promise
      res.end(rest)
    }
    const response = await request(`${rec.relay.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, {
      method: 'POST',
      body: '{}',
    })
    const chunks: Buffer[] = []
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer)
      if (Buffer.concat(chunks).length >= first.length) clientGotFirst.resolve()
    }
    expect(Buffer.concat(chunks).equals(Buffer.concat([first, rest]))).toBe(true)
    await rec.relay.idle()
    expect((rec.events.at(-1) as HttpExchange).endpoint).toBe('gemini.streamGenerateContent')
  })

  it('relays a WebSocket to a wss upstream', async () => {
    mock.onSocket = (socket) => socket.on('message', (data) => socket.send(`echo ${data.toString()}`))
    const client = new WebSocket(`${rec.relay.url.replace('http', 'ws')}/v1/responses`)
    await once(client, 'open')
    client.send('hello')
    const [reply] = (await once(client, 'message')) as [Buffer]
    expect(reply.toString()).toBe('echo hello')
    client.close()
    await once(client, 'close')
  })

  it('refuses an upstream its CA does not vouch for: a 502 naming the host, and keeps serving', async () => {
    const untrusting = await startRecordingRelay({
      upstreams: { anthropic: mock.url, openai: 'http://127.0.0.1:9' },
    })
    try {
      const got = await send(`${untrusting.relay.url}/v1/messages`, {
        headers: { 'x-api-key': 'k' },
        body: '{}',
      })
      expect(got.status).toBe(502)
      const body = JSON.parse(got.body.toString())
      expect(body.error.message).toContain(mock.host)
      await untrusting.relay.idle()
      expect((untrusting.events[0] as HttpExchange).error).toMatch(/CERT|SIGNATURE|ISSUER/)
    } finally {
      await untrusting.relay.close()
    }
    expect((await send(`${rec.relay.url}/v1/messages`, { body: '{}' })).status).toBe(200)
  })

  it('reaches the upstream through HTTPS_PROXY, and directly for a host NO_PROXY names', async () => {
    const proxy = await startConnectProxy()
    const saved = { ...process.env }
    for (const name of ['NO_PROXY', 'no_proxy', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])
      delete process.env[name]
    try {
      process.env.HTTPS_PROXY = proxy.url
      const proxied = await startRecordingRelay({
        ca: ca.ca,
        upstreams: { anthropic: mock.url, openai: mock.url },
      })
      try {
        expect((await send(`${proxied.relay.url}/v1/messages`, { body: '{}' })).status).toBe(200)
        expect(proxy.targets).toEqual([mock.host])
        // Node's agents read the proxy variables from Node 22.21 on (`proxyEnv`); the WebSocket relay uses them.
        const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
        if (major > 22 || minor >= 21) {
          mock.onSocket = (socket) => socket.on('message', (data) => socket.send(data))
          const client = new WebSocket(`${proxied.relay.url.replace('http', 'ws')}/v1/responses`)
          await once(client, 'open')
          client.close()
          await once(client, 'close')
          expect(proxy.targets).toEqual([mock.host, mock.host])
        }
      } finally {
        await proxied.relay.close()
      }
      process.env.NO_PROXY = 'localhost'
      const direct = await startRecordingRelay({ ca: ca.ca, upstreams: { anthropic: mock.url } })
      try {
        const before = proxy.targets.length
        expect((await send(`${direct.relay.url}/v1/messages`, { body: '{}' })).status).toBe(200)
        expect(proxy.targets).toHaveLength(before)
      } finally {
        await direct.relay.close()
      }
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
      Object.assign(process.env, saved)
      await proxy.close()
    }
  })

  it('trusts the CA named by NODE_EXTRA_CA_CERTS (a relay in its own process, no ca option)', async () => {
    mock.handler = (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"through":"NODE_EXTRA_CA_CERTS"}')
    }
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mock.url], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.caFile },
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer]
      const { url } = JSON.parse(line.toString()) as { url: string }
      const got = await send(`${url}/v1/messages`, { body: '{}' })
      expect(got.status).toBe(200)
      expect(got.body.toString()).toBe('{"through":"NODE_EXTRA_CA_CERTS"}')
    } finally {
      child.stdin.end()
      if (child.exitCode === null) await once(child, 'exit')
    }
  })
})
