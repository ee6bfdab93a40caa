/*
 * OpenAI Responses over WebSocket (Codex's transport): the client's upgrade
 * on `/v1/responses` opens a WebSocket to the upstream first; once it is
 * open the client's is accepted with the same subprotocol, and every
 * message is relayed as received, each one also handed to the record queue.
 * An upstream that refuses the upgrade has its answer relayed; one that
 * cannot be reached gives the client a 502 in OpenAI's error shape.
 */
import { Agent as HttpAgent, type IncomingMessage, STATUS_CODES } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import type { Duplex } from 'node:stream'
import { type RawData, WebSocket, type WebSocketServer } from 'ws'
import type { UsageProvider } from '../../compile/types.js'
import { BODY_CAP } from './body-copy.js'
import { routeOf } from './endpoints.js'
import type { RelayEvent } from './events.js'
import {
  type HeaderPair,
  pairsOfObject,
  pairsOfRaw,
  recordedHeaders,
  recordedPath,
  withoutHopByHop,
} from './headers.js'
import { upstreamErrorBody, upstreamFailureMessage } from './upstream-errors.js'
import { type Upstream, upstreamPath } from './upstreams.js'

/** What a relayed WebSocket needs from its relay. */
export interface WsRelayContext {
  upstreams: Readonly<Record<UsageProvider, Upstream>>
  /** Extra CA certificates for a TLS upstream (beside Node's, which include `NODE_EXTRA_CA_CERTS`). */
  ca?: string | Buffer | Array<string | Buffer>
  agents: WsAgents
  nextId(): number
  now(): number
  record(event: RelayEvent): void
  /** Every open WebSocket of the relay, both sides, so that closing the relay ends them. */
  open: Set<WebSocket>
}

// The handshake headers belong to each side's own handshake; ws writes the upstream's.
const NOT_FORWARDED: ReadonlySet<string> = new Set([
  'host',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
])

/** The chosen subprotocol per accepted request, read by the server's `handleProtocols`. */
export const chosenProtocol = new WeakMap<IncomingMessage, string>()

/** The agents of upstream WebSockets, per scheme. */
export interface WsAgents {
  'ws:': HttpAgent
  'wss:': HttpsAgent
}

/**
 * Agents that honour HTTPS_PROXY, HTTP_PROXY and NO_PROXY as the
 * environment has them now, as undici's EnvHttpProxyAgent does for HTTP
 * (Node's `proxyEnv`, Node 22.21 and later; an earlier Node connects directly).
 */
export function wsAgents(): WsAgents {
  const options = { proxyEnv: process.env, keepAlive: false }
  return {
    'ws:': new HttpAgent(options as ConstructorParameters<typeof HttpAgent>[0]),
    'wss:': new HttpsAgent(options as ConstructorParameters<typeof HttpsAgent>[0]),
  }
}

function asObject(pairs: readonly HeaderPair[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase()
    out[lower] = Object.hasOwn(out, lower) ? `${out[lower]}, ${value}` : value
  }
  return out
}

/** Writes a whole HTTP response on a socket not yet upgraded, then closes it. */
function answerRaw(socket: Duplex, status: number, pairs: readonly HeaderPair[], body?: Buffer): void {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, ...pairs.map(([n, v]) => `${n}: ${v}`)]
  socket.write(`${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`)
  socket.end(body)
}

function sendableCode(code: number): boolean {
  return (
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code <= 4999)
  )
}

function closeLike(target: WebSocket, code: number, reason: Buffer): void {
  if (target.readyState === WebSocket.CLOSED || target.readyState === WebSocket.CLOSING) return
  if (code === 1006) target.terminate()
  else if (sendableCode(code)) target.close(code, reason)
  else target.close()
}

/** Past this many bytes waiting to be sent to one side, the other side is read no further until they drain. */
const HIGH_WATER = 4 * 1024 * 1024

/** Sends a message on, pausing its source while the target's send buffer is full (a slow reader). */
function forward(from: WebSocket, to: WebSocket, bytes: Buffer, binary: boolean): void {
  if (to.readyState !== WebSocket.OPEN) return
  to.send(bytes, { binary }, () => {
    if (from.isPaused && to.bufferedAmount < HIGH_WATER) from.resume()
  })
  if (to.bufferedAmount >= HIGH_WATER) from.pause()
}

function dataOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)
}

/** Handles one upgrade request on the relay's server. */
export function relayUpgrade(
  ctx: WsRelayContext,
  server: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const pathAndQuery = req.url ?? '/'
  const route = routeOf(pathAndQuery, req.headers)
  socket.on('error', () => socket.destroy())
  if (route.endpoint !== 'openai.responses') {
    answerRaw(
      socket,
      404,
      [['content-type', 'text/plain']],
      Buffer.from('WebSocket is relayed on /v1/responses only\n'),
    )
    return
  }
  const connection = ctx.nextId()
  const upstream = ctx.upstreams.openai
  const requestPairs = pairsOfRaw(req.rawHeaders)
  const url = new URL(upstreamPath(upstream, pathAndQuery), upstream.origin)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  const protocols = (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
  const toUpstream = new WebSocket(url, protocols, {
    headers: asObject(withoutHopByHop(requestPairs, NOT_FORWARDED)),
    agent: ctx.agents[url.protocol as 'ws:' | 'wss:'],
    maxPayload: 0,
    ...(ctx.ca === undefined ? {} : { ca: ctx.ca }),
  })
  ctx.open.add(toUpstream)
  let accepted = false

  const frame = (direction: 'to-upstream' | 'to-client', data: Buffer, binary: boolean): void => {
    const at = ctx.now()
    const kept = data.byteLength <= BODY_CAP
    ctx.record({
      kind: 'ws',
      connection,
      direction,
      binary,
      at,
      ...(kept
        ? { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) }
        : { truncated: true }),
    })
  }

  toUpstream.on('unexpected-response', (_request, response) => {
    const chunks: Buffer[] = []
    response.on('data', (chunk: Buffer) => chunks.push(chunk))
    response.on('end', () => {
      const pairs = withoutHopByHop(pairsOfObject(response.headers), new Set(['content-length']))
      const body = Buffer.concat(chunks)
      answerRaw(
        socket,
        response.statusCode ?? 502,
        [...pairs, ['content-length', String(body.byteLength)]],
        body,
      )
      ctx.open.delete(toUpstream)
    })
    response.on('error', () => socket.destroy())
  })

  toUpstream.on('error', (error) => {
    ctx.open.delete(toUpstream)
    if (accepted) return
    const body = Buffer.from(upstreamErrorBody('openai', upstreamFailureMessage(upstream.host, error)))
    answerRaw(
      socket,
      502,
      [
        ['content-type', 'application/json'],
        ['content-length', String(body.byteLength)],
      ],
      body,
    )
  })
  // A client that leaves before the upstream answered ends the upstream's handshake.
  socket.once('close', () => {
    if (!accepted) toUpstream.terminate()
  })

  toUpstream.on('open', () => {
    chosenProtocol.set(req, toUpstream.protocol)
    server.handleUpgrade(req, socket, head, (toClient) => {
      accepted = true
      ctx.open.add(toClient)
      ctx.record({
        kind: 'ws-open',
        connection,
        provider: 'openai',
        endpoint: 'openai.responses',
        path: recordedPath(pathAndQuery),
        requestHeaders: recordedHeaders(requestPairs),
        at: ctx.now(),
      })
      let closed = false
      const ended = (code: number): void => {
        if (closed) return
        closed = true
        ctx.record({ kind: 'ws-close', connection, code, at: ctx.now() })
      }
      toClient.on('message', (data, binary) => {
        const bytes = dataOf(data)
        frame('to-upstream', bytes, binary)
        forward(toClient, toUpstream, bytes, binary)
      })
      toUpstream.on('message', (data, binary) => {
        const bytes = dataOf(data)
        frame('to-client', bytes, binary)
        forward(toUpstream, toClient, bytes, binary)
      })
      toClient.on('close', (code, reason) => {
        ctx.open.delete(toClient)
        ended(code)
        closeLike(toUpstream, code, reason)
      })
      toUpstream.on('close', (code, reason) => {
        ctx.open.delete(toUpstream)
        ended(code)
        closeLike(toClient, code, reason)
      })
      toClient.on('error', () => toUpstream.terminate())
      toUpstream.on('error', () => toClient.terminate())
    })
  })
}
