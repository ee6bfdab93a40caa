/*
 * What the relay hands to the recorder: one event per finished HTTP exchange
 * and per WebSocket connection opened, frame and close. Credentials are
 * never in them (headers.ts); bodies are decoded copies, kept only for the
 * recorded endpoints.
 */
import type { TrafficEndpoint } from '../../compile/call-record.js'
import type { UsageProvider } from '../../compile/types.js'

/** A body as recorded: its decoded bytes, or why they are absent. */
export interface CapturedBody {
  /**
   * `complete`: `bytes` hold the whole decoded body. `truncated`: the body
   * on the wire passed the copy cap, so no copy was kept. `too-large`:
   * decoding passed the cap. `undecodable`: an unknown or corrupt encoding.
   */
  state: 'complete' | 'truncated' | 'too-large' | 'undecodable'
  /** The decoded bytes, when `state` is `complete`. */
  bytes?: Uint8Array
  /** The `Content-Encoding` as sent, when there was one. */
  encoding?: string
  /** Bytes on the wire, as sent (encoded). */
  wireLength: number
}

/** One finished HTTP request and its response. Times are milliseconds since the epoch. */
export interface HttpExchange {
  kind: 'http'
  /** Numbered from 1 per relay, in the order requests arrived (shared with WebSocket connections). */
  id: number
  provider: UsageProvider
  /** The recorded endpoint, or `undefined` for a path forwarded unrecorded. */
  endpoint?: TrafficEndpoint
  method: string
  /** The path and query as sent, `key` query parameters removed. */
  path: string
  /** Lower-case names, repeated headers joined by `, `, credentials removed. */
  requestHeaders: Record<string, string>
  /** Only for recorded endpoints. */
  requestBody?: CapturedBody
  /** The status the client got: 502 when the relay answered for a failed upstream, 0 when the client left before any answer. */
  status: number
  responseHeaders: Record<string, string>
  /** Only for recorded endpoints. */
  responseBody?: CapturedBody
  /** The response was a server-sent event stream (`text/event-stream`). */
  streamed: boolean
  startedAt: number
  /** When the response's status and headers arrived from the upstream. */
  firstByteAt?: number
  endedAt: number
  /** Why the exchange did not finish normally: the upstream failure's code, or `client-closed`. */
  error?: string
}

/** A WebSocket connection relayed (OpenAI Responses over WebSocket, Codex's transport). */
export interface WsOpen {
  kind: 'ws-open'
  /** The connection's id, shared by its frames and close (same numbering as `HttpExchange.id`). */
  connection: number
  provider: UsageProvider
  endpoint: TrafficEndpoint
  path: string
  requestHeaders: Record<string, string>
  at: number
}

/** One WebSocket message, in the order relayed. */
export interface WsFrame {
  kind: 'ws'
  connection: number
  direction: 'to-upstream' | 'to-client'
  /** The message's bytes (a text message as UTF-8); absent when over the copy cap (`truncated`). */
  data?: Uint8Array
  binary: boolean
  truncated?: boolean
  at: number
}

/** The end of a relayed WebSocket connection. */
export interface WsClose {
  kind: 'ws-close'
  connection: number
  /** The close code from whichever side closed first (1006 for a dropped connection). */
  code: number
  at: number
}

/** Everything the relay hands to `onExchange`. */
export type RelayEvent = HttpExchange | WsOpen | WsFrame | WsClose
