/*
 * A mock model provider on loopback for the relay's tests: plain HTTP or
 * TLS, an optional WebSocket endpoint, and a per-test handler that sees each
 * request with its whole body as received.
 */
import { once } from 'node:events'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'

/** One request as the mock received it. */
export interface MockRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  rawHeaders: string[]
  body: Buffer
}

export type MockHandler = (request: MockRequest, res: ServerResponse) => unknown

export interface MockProvider {
  /** `http://127.0.0.1:<port>` or `https://localhost:<port>`. */
  url: string
  /** `127.0.0.1:<port>` or `localhost:<port>`. */
  host: string
  requests: MockRequest[]
  handler: MockHandler
  /** Called for each WebSocket the mock accepts on any path. */
  onSocket: (socket: WebSocket, request: IncomingMessage) => void
  /** Refuses a WebSocket upgrade with this status (and the status text as body) when set. */
  refuseUpgrade?: number
  close(): Promise<void>
}

/** Starts the mock; with `tls`, over HTTPS with that key and certificate (for `localhost`). */
export async function startMockProvider(tls?: { key: Buffer; cert: Buffer }): Promise<MockProvider> {
  const mock: MockProvider = {
    url: '',
    host: '',
    requests: [],
    handler: (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    },
    onSocket: () => {},
    close: async () => {},
  }
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const request: MockRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks),
    }
    mock.requests.push(request)
    await mock.handler(request, res)
  }
  const server: Server = tls === undefined ? createHttpServer(onRequest) : createHttpsServer(tls, onRequest)
  const sockets = new WebSocketServer({
    server,
    handleProtocols: (offered) => [...offered][0] ?? false,
    verifyClient: (_info, callback) =>
      mock.refuseUpgrade === undefined ? callback(true) : callback(false, mock.refuseUpgrade),
  })
  sockets.on('connection', (socket, request) => mock.onSocket(socket, request))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  mock.host = tls === undefined ? `127.0.0.1:${port}` : `localhost:${port}`
  mock.url = `${tls === undefined ? 'http' : 'https'}://${mock.host}`
  mock.close = async () => {
    for (const socket of sockets.clients) socket.terminate()
    sockets.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return mock
}

/** A promise with its resolver outside, for a test to signal the mock (no sleeps). */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}
