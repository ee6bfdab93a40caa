import { request } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore } from '../compile/index.js'
import { makeProject } from './server.test-helper.js'
import { ServerStartError, startServer } from './start.js'

let root: string
let cleanup: () => Promise<void>
beforeAll(async () => {
  ;({ root, cleanup } = await makeProject('start'))
})
afterAll(() => cleanup())

/** Sends `raw` on a fresh connection and resolves with everything the server wrote before closing. */
function rawExchange(port: number, raw: string, keepOpen = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (received += chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(received))
    socket.write(raw)
    if (!keepOpen) socket.end()
  })
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('startServer', () => {
  it('refuses a host off loopback without a token', async () => {
    await expect(
      startServer({ root, store: memoryStore(), host: '0.0.0.0', port: 0 }),
    ).rejects.toBeInstanceOf(ServerStartError)
  })

  it('a slow body gets 408 while other clients are served', async () => {
    const server = await startServer({ root, store: memoryStore(), port: 0, requestTimeoutMs: 1500 })
    try {
      const slow = rawExchange(
        server.port,
        `POST /api/preview HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"con`,
        true,
      )
      // The slow client holds its connection; others are answered meanwhile.
      const health = await get(server.port, '/healthz')
      expect(health).toEqual({ status: 200, body: '{"ok":true}' })
      const answer = await slow
      expect(answer).toMatch(/^HTTP\/1\.1 408 /)
      expect(answer).toContain('"code":"request-timeout"')
    } finally {
      await server.close()
    }
  })

  it('answers headers over Node limits with a JSON 431', async () => {
    const server = await startServer({ root, store: memoryStore(), port: 0 })
    try {
      const answer = await rawExchange(
        server.port,
        `GET /api/variables?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`,
      )
      expect(answer).toMatch(/^HTTP\/1\.1 431 /)
      expect(answer).toContain('"code":"headers-too-large"')
      expect((await get(server.port, '/healthz')).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('close lets a request in flight finish, then closes the store', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let entered!: () => void
    const inside = new Promise<void>((resolve) => (entered = resolve))
    let storeClosed = false
    const store = memoryStore()
    const close = store.close.bind(store)
    store.close = async () => {
      storeClosed = true
      await close()
    }
    const server = await startServer({
      root,
      store,
      port: 0,
      extend: (app) =>
        app.get('/slow', async (c) => {
          entered()
          await gate
          return c.text('done')
        }),
    })
    const inFlight = get(server.port, '/slow')
    await inside
    const closed = server.close()
    expect(storeClosed).toBe(false)
    release()
    expect(await inFlight).toEqual({ status: 200, body: 'done' })
    await closed
    expect(storeClosed).toBe(true)
  })
})
