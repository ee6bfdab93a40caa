import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Relay, startRelay } from './relay.js'

// A web page can reach a loopback port through DNS rebinding: its requests
// carry its own name as Host and its origin. The relay answers neither, so
// no page can push requests (and recordings) through it.

let relay: Relay
const forwarded: string[] = []
beforeAll(async () => {
  // The upstream is never reached by a refused request; one that is let through fails at this closed port.
  relay = await startRelay({
    upstreams: {
      anthropic: 'http://127.0.0.1:9',
      openai: 'http://127.0.0.1:9',
      gemini: 'http://127.0.0.1:9',
    },
    onExchange: (event) => {
      if (event.kind === 'http') forwarded.push(event.path)
    },
  })
})
afterAll(() => relay?.close())

function send(headers: Record<string, string>, upgrade = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: relay.port,
      path: '/v1/messages',
      method: upgrade ? 'GET' : 'POST',
      headers: upgrade ? { ...headers, connection: 'Upgrade', upgrade: 'websocket' } : headers,
    })
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('upgrade', (res, socket) => {
      socket.destroy()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end(upgrade ? undefined : '{}')
  })
}

describe('the relay answers loopback clients only', () => {
  it('refuses a Host that is not its loopback address and port', async () => {
    expect(await send({ host: 'evil.example' })).toBe(403)
    expect(await send({ host: `evil.example:${relay.port}` })).toBe(403)
    expect(await send({ host: '127.0.0.1:1' })).toBe(403)
  })

  it('refuses a request from a web page (an Origin other than itself)', async () => {
    expect(await send({ host: `127.0.0.1:${relay.port}`, origin: 'http://evil.example' })).toBe(403)
  })

  it('refuses a WebSocket upgrade with a foreign Host', async () => {
    expect(await send({ host: 'evil.example' }, true)).toBe(403)
  })

  it('lets a harness through (Host 127.0.0.1 or localhost with its port, no Origin)', async () => {
    await relay.idle()
    expect(forwarded).toEqual([])
    expect(await send({ host: `127.0.0.1:${relay.port}`, 'anthropic-version': '2023-06-01' })).toBe(502)
    expect(await send({ host: `localhost:${relay.port}`, 'anthropic-version': '2023-06-01' })).toBe(502)
    await relay.idle()
    // Only those two reached the upstream side; none of the refused ones (the tests above) did.
    expect(forwarded).toHaveLength(2)
  })
})
