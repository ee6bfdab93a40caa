/*
 * OpenAI Responses turns over a WebSocket (Codex's transport), rebuilt into
 * the exchanges an HTTP request would have made (issue 33). A client sends
 * `response.create` messages (the Responses request's fields); the server
 * answers each with events, `response.created`, `response.output_item.done`
 * …, until `response.completed` (or `.failed`, `.incomplete`, or an `error`
 * event). A turn that continues a chain sends only its new input with
 * `previous_response_id`: its full input is the previous turn's full input,
 * that response's output items and its own input, when the previous
 * response was seen on this connection; otherwise it is `partial`. Pure:
 * the recorder feeds it the relay's events and records what it yields.
 */
import { bodyText, parseJsonText } from './parse/body.js'
import type { HttpExchange, WsClose, WsFrame, WsOpen } from './relay/events.js'

/** A finished turn, as the exchange an HTTP request with its whole input would have been. */
export interface WsTurn {
  /** The synthetic exchange: the request body rebuilt (no `type`, no `previous_response_id`), the response as JSON. */
  exchange: HttpExchange
  /** It continued a response this connection never showed: its input holds only what it sent. */
  partial: boolean
}

/** How many responses per connection a later turn may continue; Codex continues the latest one. */
const KEPT_RESPONSES = 8

type Json = Record<string, unknown>

interface Pending {
  /** The message's fields, or `undefined` when the frame was over the copy cap. */
  message?: Json
  at: number
  firstByteAt?: number
  responseId?: string
  output: unknown[]
  status?: number
}

interface Connection {
  open: WsOpen
  pending: Pending[]
  /** Each seen response's full input and output (`undefined` input: it was partial). */
  responses: Map<string, { input?: unknown[]; output: unknown[] }>
}

const encoder = new TextEncoder()

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function readJson(data: Uint8Array | undefined): Json | undefined {
  if (data === undefined) return undefined
  const text = bodyText(data)
  if (!text.ok) return undefined
  const json = parseJsonText(text.text)
  return json.ok && isJson(json.value) ? json.value : undefined
}

/** A message's own input as a list (a string input is one user message). */
function inputOf(message: Json): unknown[] {
  if (typeof message.input === 'string') return [{ type: 'message', role: 'user', content: message.input }]
  return Array.isArray(message.input) ? message.input : []
}

/**
 * The turns of every WebSocket connection the relay hands on, one connection
 * at a time or many interleaved: `open`, each `frame` (which returns the
 * turns a server event finished) and `close` (which returns the turns left
 * unanswered).
 */
export interface WsTurns {
  open(event: WsOpen): void
  frame(event: WsFrame): WsTurn[]
  close(event: WsClose): WsTurn[]
}

export function createWsTurns(): WsTurns {
  const connections = new Map<number, Connection>()

  function finish(connection: Connection, turn: Pending, endedAt: number, response?: Json): WsTurn[] {
    const { message } = turn
    const id = turn.responseId ?? (typeof response?.id === 'string' ? response.id : undefined)
    const output =
      Array.isArray(response?.output) && response.output.length > 0 ? response.output : turn.output
    let full: unknown[] | undefined
    let partial = false
    if (message !== undefined) {
      const previous = message.previous_response_id
      if (typeof previous === 'string') {
        const seen = connection.responses.get(previous)
        if (seen?.input !== undefined) full = [...seen.input, ...seen.output, ...inputOf(message)]
        else partial = true
      } else full = inputOf(message)
    }
    if (id !== undefined) {
      connection.responses.delete(id)
      connection.responses.set(id, { ...(full !== undefined && { input: full }), output })
      while (connection.responses.size > KEPT_RESPONSES)
        connection.responses.delete(connection.responses.keys().next().value as string)
    }
    // A prewarm (`generate: false`) asks the server to hold the prefix and generate nothing:
    // no model call to record, though a later turn may continue its response.
    if (message?.generate === false) return []
    return [{ exchange: exchangeOf(connection.open, turn, endedAt, full, response), partial }]
  }

  return {
    open(event) {
      connections.set(event.connection, { open: event, pending: [], responses: new Map() })
    },
    frame(event) {
      const connection = connections.get(event.connection)
      if (connection === undefined || event.binary) return []
      if (event.direction === 'to-upstream') {
        const message = readJson(event.data)
        // A message over the copy cap is still a turn (its body reads as truncated); others are not.
        if (message === undefined && event.truncated !== true) return []
        if (message !== undefined && message.type !== 'response.create') return []
        connection.pending.push({ ...(message !== undefined && { message }), at: event.at, output: [] })
        return []
      }
      const turn = connection.pending[0]
      const data = readJson(event.data)
      if (turn === undefined || data === undefined) return []
      turn.firstByteAt ??= event.at
      const response = isJson(data.response) ? data.response : undefined
      if (typeof response?.id === 'string') turn.responseId ??= response.id
      switch (data.type) {
        case 'response.output_item.done':
          turn.output.push(data.item)
          return []
        case 'response.completed':
        case 'response.failed':
        case 'response.incomplete':
          connection.pending.shift()
          return finish(connection, turn, event.at, response)
        case 'error': {
          // An error event ends the turn it answers; its status, when it gives one, is the HTTP one.
          const status = isJson(data.error) ? data.error.status : data.status
          turn.status = typeof status === 'number' ? status : 400
          connection.pending.shift()
          return finish(connection, turn, event.at, undefined)
        }
        default:
          return []
      }
    },
    close(event) {
      const connection = connections.get(event.connection)
      connections.delete(event.connection)
      if (connection === undefined) return []
      // Turns the server never finished: recorded without a response, as an HTTP request cut short.
      return connection.pending.flatMap((turn) => {
        turn.status ??= turn.firstByteAt === undefined ? 0 : 200
        return finish(connection, turn, event.at, undefined)
      })
    },
  }
}

/** The HTTP exchange a turn stands for: its body as a whole-input request, the response object as a JSON body. */
function exchangeOf(
  open: WsOpen,
  turn: Pending,
  endedAt: number,
  full: unknown[] | undefined,
  response: Json | undefined,
): HttpExchange {
  let requestBody: HttpExchange['requestBody']
  if (turn.message === undefined) requestBody = { state: 'truncated', wireLength: 0 }
  else {
    const { type: _type, previous_response_id: _previous, ...fields } = turn.message
    // A partial turn keeps only the input it sent.
    const bytes = encoder.encode(JSON.stringify({ ...fields, input: full ?? inputOf(turn.message) }))
    requestBody = { state: 'complete', bytes, wireLength: bytes.byteLength }
  }
  const answer = response === undefined ? undefined : encoder.encode(JSON.stringify(response))
  return {
    kind: 'http',
    id: open.connection,
    provider: open.provider,
    endpoint: open.endpoint,
    method: 'POST',
    path: open.path,
    requestHeaders: open.requestHeaders,
    requestBody,
    status: turn.status ?? 200,
    responseHeaders: {},
    ...(answer !== undefined && {
      responseBody: { state: 'complete' as const, bytes: answer, wireLength: answer.byteLength },
    }),
    streamed: true,
    startedAt: turn.at,
    ...(turn.firstByteAt !== undefined && { firstByteAt: turn.firstByteAt }),
    endedAt,
  }
}
