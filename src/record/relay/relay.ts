/*
 * `startRelay`: the loopback relay of `sysprompt record`. It listens on
 * 127.0.0.1 only, forwards each request to its provider's upstream (undici's
 * EnvHttpProxyAgent, so HTTPS_PROXY and NO_PROXY apply; Node's default TLS
 * context, so NODE_EXTRA_CA_CERTS applies) and hands every finished
 * exchange and WebSocket message to `onExchange` through a bounded queue it
 * never waits on.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { EnvHttpProxyAgent } from 'undici'
import { type WebSocket, WebSocketServer } from 'ws'
import { loopbackRequestProblem } from '../../shared/loopback.js'
import { captureBody } from './body-copy.js'
import { PreviousResponses } from './diagnose.js'
import type { RelayEvent } from './events.js'
import { type PendingExchange, relayHttp } from './http-relay.js'
import { RecordQueue } from './record-queue.js'
import { resolveUpstreams, type UpstreamOptions } from './upstreams.js'
import { chosenProtocol, relayUpgrade, wsAgents } from './ws-relay.js'

const REFUSED = {
  'forbidden-host':
    'the relay of sysprompt record answers only requests whose Host names its loopback address and port',
  'forbidden-origin': 'the relay of sysprompt record refuses requests from a web page',
} as const

/**
 * Why a request may not go through the relay: a web page can reach a
 * loopback port through DNS rebinding, with its own name in `Host` and its
 * origin in `Origin`; harnesses send neither.
 */
function refusal(req: IncomingMessage, port: number | undefined): keyof typeof REFUSED | undefined {
  const origin = req.headers.origin
  return loopbackRequestProblem(req.headers.host, Array.isArray(origin) ? origin[0] : origin, port)
}

/** How a relay starts. */
export interface RelayOptions {
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number
  /** One base URL per provider; the public API hosts by default. A path in it (a gateway's prefix) is kept. */
  upstreams?: UpstreamOptions
  /** Called for each finished exchange and WebSocket event, one at a time, in order; the relay never waits on it. */
  onExchange?: (event: RelayEvent) => unknown
  /** Called when an event is dropped (queue full) or `onExchange` fails. */
  onWarning?: (message: string) => void
  /** The most events waiting for `onExchange`; past it they are dropped and counted. Default 256. */
  queueSize?: number
  /** The most body and frame bytes the waiting events may hold; past it they are dropped and counted. Default 512 MiB. */
  queueBytes?: number
  /**
   * CA certificates trusted for TLS upstreams instead of Node's default
   * roots. Without it Node's roots apply, plus those of
   * `NODE_EXTRA_CA_CERTS` (read by Node when the process starts).
   */
  ca?: string | Buffer | Array<string | Buffer>
  /** The clock of the recorded times (milliseconds since the epoch). Default `Date.now`. */
  now?: () => number
  /**
   * Asks the providers to explain their cache misses (`--diagnose`): each
   * Anthropic Messages request gets the `cache-diagnosis-2026-04-07` beta
   * and `diagnostics.previous_message_id`, each OpenAI Responses request
   * `prompt_cache_options.comparison_response_id`, naming the previous
   * response of its conversation. The only rewrite the relay ever makes;
   * such a request is read whole before it is forwarded. Default off: every
   * request is forwarded byte for byte.
   */
  diagnose?: boolean
}

/** A running relay. */
export interface Relay {
  /** `http://127.0.0.1:<port>`, what a harness's base URL points at. */
  readonly url: string
  readonly port: number
  /** Events dropped because the record queue was full. */
  readonly dropped: number
  /** Resolves once every event so far has been handed to `onExchange` (and it settled). */
  idle(): Promise<void>
  /** Stops listening, ends open connections, waits for the record queue, then releases the upstream connections. */
  close(): Promise<void>
}

type Queued = PendingExchange | { event: Exclude<RelayEvent, { kind: 'http' }> }

/** The bytes an event holds while it waits: its body copies, or a frame's data. */
function weigh(item: Queued): number {
  if ('bodies' in item && item.bodies !== undefined)
    return item.bodies.request.kept + item.bodies.response.kept
  return item.event.kind === 'ws' ? (item.event.data?.byteLength ?? 0) : 0
}

async function finish(item: Queued): Promise<RelayEvent> {
  if (!('bodies' in item) || item.bodies === undefined) return item.event
  const { request, requestEncoding, response, responseEncoding } = item.bodies
  return {
    ...item.event,
    requestBody: await captureBody(request, requestEncoding),
    responseBody: await captureBody(response, responseEncoding),
  } as RelayEvent
}

function listen(server: Server, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })
}

/** Starts the relay on 127.0.0.1. Throws `UpstreamUrlError` for a bad upstream URL, and the listen error (`EADDRINUSE`). */
export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const upstreams = resolveUpstreams(options.upstreams)
  const now = options.now ?? Date.now
  // A throwing warning handler must not reach the request handlers (an unhandled rejection ends the process).
  const warn = (message: string): void => {
    try {
      options.onWarning?.(message)
    } catch {}
  }
  const onExchange = options.onExchange ?? (() => {})
  const queue = new RecordQueue<Queued>({
    size: options.queueSize ?? 256,
    maxBytes: options.queueBytes ?? 512 * 1024 * 1024,
    weigh,
    consume: async (item) => onExchange(await finish(item)),
    onDrop: (dropped) => warn(`recording queue full: an exchange was not recorded (${dropped} so far)`),
    onError: (error) => warn(`recording failed: ${error instanceof Error ? error.message : String(error)}`),
  })
  // No timeouts of its own: a model may think for minutes before its first byte; the client decides.
  const dispatcher = new EnvHttpProxyAgent({
    headersTimeout: 0,
    bodyTimeout: 0,
    ...(options.ca === undefined ? {} : { connect: { ca: options.ca } }),
  })
  let lastId = 0
  const nextId = () => ++lastId
  const open = new Set<WebSocket>()
  const record = (item: Queued) => void queue.push(item)

  const httpContext = {
    upstreams,
    dispatcher,
    nextId,
    now,
    record,
    ...(options.diagnose === true ? { previousResponses: new PreviousResponses() } : {}),
  }
  // The port, once listening: a request must name it (with a loopback host) in its Host header.
  const bound: { port?: number } = {}
  const server = createServer({ requestTimeout: 0 }, (req, res) => {
    const problem = refusal(req, bound.port)
    if (problem === undefined) void relayHttp(httpContext, req, res)
    else {
      res.writeHead(403, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { type: problem, message: REFUSED[problem] } }))
    }
  })
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: 0,
    handleProtocols: (_offered: Set<string>, req: IncomingMessage) => chosenProtocol.get(req) || false,
  })
  const agents = wsAgents()
  const wsContext = {
    upstreams,
    agents,
    nextId,
    now,
    open,
    record: (event: RelayEvent) => record({ event } as Queued),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  }
  server.on('upgrade', (req, socket, head) => {
    if (refusal(req, bound.port) === undefined) relayUpgrade(wsContext, sockets, req, socket, head)
    else socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
  })

  const address = await listen(server, options.port ?? 0)
  bound.port = address.port
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    get dropped() {
      return queue.dropped
    },
    idle: () => queue.idle(),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const ws of open) ws.terminate()
      server.closeAllConnections()
      await closed
      sockets.close()
      await queue.idle()
      await dispatcher.close()
      agents['ws:'].destroy()
      agents['wss:'].destroy()
    },
  }
}
