/*
 * One HTTP request through the relay: forwarded upstream with undici as
 * sent (body bytes untouched, compressed or not), the response streamed
 * back chunk by chunk as it arrives, and, for recorded endpoints, a bounded
 * copy of both bodies handed to the record queue once the exchange ends.
 * Under `--diagnose` (diagnose.ts) an Anthropic Messages or OpenAI
 * Responses request is read whole and rewritten before it is forwarded;
 * its response still streams as it arrives.
 */
import { once } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import type { UsageProvider } from '../../compile/types.js'
import { BodyCopy } from './body-copy.js'
import { isDiagnosed, type PreviousResponses, prepareDiagnosed, responseId } from './diagnose.js'
import { routeOf } from './endpoints.js'
import type { HttpExchange } from './events.js'
import {
  flatten,
  type HeaderPair,
  pairsOfObject,
  pairsOfRaw,
  recordedHeaders,
  recordedPath,
  withoutHopByHop,
} from './headers.js'
import { failureCode, upstreamErrorBody, upstreamFailureMessage } from './upstream-errors.js'
import { type Upstream, upstreamPath } from './upstreams.js'

/** An exchange waiting in the record queue, its bodies still as copied. */
export interface PendingExchange {
  event: HttpExchange
  bodies?: {
    request: BodyCopy
    requestEncoding: string | undefined
    response: BodyCopy
    responseEncoding: string | undefined
  }
}

/** What a relayed request needs from its relay. */
export interface HttpRelayContext {
  upstreams: Readonly<Record<UsageProvider, Upstream>>
  dispatcher: Dispatcher
  nextId(): number
  now(): number
  /** Hands a finished exchange to the record queue; never waits. */
  record(pending: PendingExchange): void
  /** Set under `--diagnose`: the previous response of each conversation, which diagnosed requests name. */
  previousResponses?: PreviousResponses
}

// `host` names the relay, not the upstream (undici sets it from the origin);
// `expect: 100-continue` was answered by Node's server already.
const NOT_FORWARDED: ReadonlySet<string> = new Set(['host', 'expect'])

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  if (length !== undefined) return length.trim() !== '0'
  return req.headers['transfer-encoding'] !== undefined
}

/** The request body as it arrives, each chunk copied for the record when asked. */
async function* teeBody(req: IncomingMessage, copy: BodyCopy | undefined): AsyncGenerator<Buffer> {
  for await (const chunk of req as AsyncIterable<Buffer>) {
    copy?.add(chunk)
    yield chunk
  }
}

/** Writes a chunk; past the socket's buffer, waits for it to drain (or for the client to leave). */
async function write(res: ServerResponse, chunk: Buffer, signal: AbortSignal): Promise<void> {
  if (res.write(chunk)) return
  await once(res, 'drain', { signal })
}

/** Relays one request; resolves when its exchange has ended (and was handed to the queue). */
export async function relayHttp(
  ctx: HttpRelayContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const startedAt = ctx.now()
  const id = ctx.nextId()
  const pathAndQuery = req.url ?? '/'
  const route = routeOf(pathAndQuery, req.headers)
  const upstream = ctx.upstreams[route.provider]
  const recorded = route.endpoint !== undefined
  const requestCopy = recorded ? new BodyCopy() : undefined
  const responseCopy = recorded ? new BodyCopy() : undefined
  const requestPairs = pairsOfRaw(req.rawHeaders)
  const endpoint = route.endpoint
  const previous = ctx.previousResponses
  const diagnosing = previous !== undefined && isDiagnosed(endpoint) && req.method === 'POST' && hasBody(req)

  // A client that leaves before the response ends aborts the upstream request.
  const abort = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) abort.abort()
  })

  const event: HttpExchange = {
    kind: 'http',
    id,
    provider: route.provider,
    ...(route.endpoint === undefined ? {} : { endpoint: route.endpoint }),
    method: req.method ?? 'GET',
    path: recordedPath(pathAndQuery),
    requestHeaders: recordedHeaders(requestPairs),
    status: 0,
    responseHeaders: {},
    streamed: false,
    startedAt,
    endedAt: startedAt,
  }
  let responseEncoding: string | undefined
  const requestEncoding = headerValue(req.headers['content-encoding'])

  try {
    let headers: HeaderPair[] = withoutHopByHop(requestPairs, NOT_FORWARDED)
    let body: Buffer | AsyncIterable<Buffer> | null = null
    let conversation: string | undefined
    if (diagnosing && requestCopy !== undefined) {
      const forward = await prepareDiagnosed(
        endpoint,
        (req as AsyncIterable<Buffer>)[Symbol.asyncIterator](),
        requestCopy,
        requestEncoding,
        headers,
        req.headers,
        previous,
      )
      ;({ body, headers, conversation } = forward)
    } else if (hasBody(req)) body = teeBody(req, requestCopy)
    const response = await ctx.dispatcher.request({
      origin: upstream.origin,
      path: upstreamPath(upstream, pathAndQuery),
      method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: flatten(headers),
      // undici takes an async iterable body (its types list only streams and buffers).
      body: body as unknown as Readable | Buffer | null,
      signal: abort.signal,
    })
    event.firstByteAt = ctx.now()
    event.status = response.statusCode
    const responsePairs = pairsOfObject(response.headers)
    event.responseHeaders = recordedHeaders(responsePairs)
    responseEncoding = headerValue(response.headers['content-encoding'])
    event.streamed = /^\s*text\/event-stream\b/i.test(headerValue(response.headers['content-type']) ?? '')
    res.writeHead(response.statusCode, flatten(withoutHopByHop(responsePairs)))
    res.flushHeaders()
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        responseCopy?.add(chunk)
        await write(res, chunk, abort.signal)
      }
      // Stored before the client sees the end, so the conversation's next request finds it.
      if (diagnosing && conversation !== undefined && responseCopy !== undefined && response.statusCode < 300)
        previous.set(conversation, responseId(endpoint, responseCopy, responseEncoding, event.streamed))
      res.end()
    } catch (error) {
      // Mid-body: the status is sent, so the client sees the stream cut.
      event.error = abort.signal.aborted ? 'client-closed' : failureCode(error)
      res.destroy()
    }
  } catch (error) {
    if (abort.signal.aborted) event.error = 'client-closed'
    else {
      event.error = failureCode(error)
      event.status = 502
      const body = upstreamErrorBody(route.provider, upstreamFailureMessage(upstream.host, error))
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      res.end(body)
    }
  }
  event.endedAt = ctx.now()
  ctx.record({
    event,
    ...(requestCopy === undefined || responseCopy === undefined
      ? {}
      : {
          bodies: {
            request: requestCopy,
            requestEncoding,
            response: responseCopy,
            responseEncoding,
          },
        }),
  })
}
