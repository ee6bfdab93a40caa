import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib'
import { WebSocketServer } from 'ws'

/** What the mock answered one request: SSE answers are written one event per chunk. */
export interface MockAnswer {
  status: number
  headers: Record<string, string>
  /** The body as written, in the writes it was written in (one for a plain answer). */
  chunks: string[]
  streamed: boolean
}

/** One request a harness sent to the mock model server, and the mock's answer. */
export interface CapturedRequest {
  method: string
  path: string
  /** The body parsed as JSON (decoded first when the harness compressed it), else its text; `null` when empty. */
  body: unknown
  /** The headers as received: name and value pairs, in order, names as the harness spelled them. */
  headers: [string, string][]
  /** The body's bytes as received (still compressed when the harness compressed it). */
  bytes: Buffer
  answer: MockAnswer
  /**
   * `websocket`: one message on a WebSocket (Codex's Responses transport):
   * `path` and `headers` are the upgrade request's, `body` the message, and
   * the answer's chunks the messages the mock sent back (status 101).
   */
  transport: 'http' | 'websocket'
  /** The WebSocket connection it came on, from 1 (messages of one connection share it). */
  connection?: number
}

/** A model server on loopback that records every request and answers each with a one-word reply. */
export interface MockModelServer {
  url: string
  requests: CapturedRequest[]
  /** Resolves with the first request that `match` accepts, waiting up to `ms`. */
  next(match: (path: string, body: unknown) => boolean, ms: number): Promise<CapturedRequest>
  close(): Promise<void>
}

/**
 * Starts the mock on 127.0.0.1 (an ephemeral port). It speaks just enough
 * of each provider's streaming protocol for a harness to finish its turn:
 * OpenAI chat completions and responses (over HTTP and over a WebSocket),
 * the Gemini API and the Anthropic messages API.
 */
export async function startMockModelServer(): Promise<MockModelServer> {
  const requests: CapturedRequest[] = []
  const waiters: {
    match: (path: string, body: unknown) => boolean
    resolve: (r: CapturedRequest) => void
  }[] = []
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy())
  })
  function capture(captured: CapturedRequest): void {
    requests.push(captured)
    for (const w of waiters.splice(0)) {
      if (w.match(captured.path, captured.body)) w.resolve(captured)
      else waiters.push(w)
    }
  }
  // The Responses API over a WebSocket: each `response.create` message is answered with the events, one message each.
  const sockets = new WebSocketServer({ noServer: true })
  let connections = 0
  server.on('upgrade', (req, socket, head) => {
    if (!(req.url ?? '').includes('/responses')) return socket.destroy()
    sockets.handleUpgrade(req, socket, head, (ws) => {
      const connection = ++connections
      ws.on('message', (data, isBinary) => {
        const bytes = Buffer.isBuffer(data)
          ? data
          : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)])
        const chunks = responsesEvents().map((e) => JSON.stringify(e))
        const answer: MockAnswer = { status: 101, headers: {}, chunks, streamed: true }
        const body = isBinary ? null : parsed(bytes.toString('utf8'))
        const path = req.url ?? '/'
        capture({
          method: 'GET',
          path,
          body,
          headers: pairs(req),
          bytes,
          answer,
          transport: 'websocket',
          connection,
        })
        for (const chunk of chunks) ws.send(chunk)
      })
    })
  })
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const bytes = Buffer.concat(chunks)
    const body = parsed(decoded(bytes, req.headers['content-encoding']).toString('utf8'))
    const path = req.url ?? '/'
    const answer = reply(path, body)
    capture({
      method: req.method ?? 'GET',
      path,
      body,
      headers: pairs(req),
      bytes,
      answer,
      transport: 'http',
    })
    res.writeHead(answer.status, answer.headers)
    for (const chunk of answer.chunks) res.write(chunk)
    res.end()
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    next(match, ms) {
      const done = requests.find((r) => match(r.path, r.body))
      if (done !== undefined) return Promise.resolve(done)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no model request within ${ms} ms`)), ms)
        waiters.push({
          match,
          resolve: (r) => {
            clearTimeout(timer)
            resolve(r)
          },
        })
      })
    },
    close: () =>
      new Promise((resolve) => {
        for (const ws of sockets.clients) ws.terminate()
        sockets.close()
        server.close(() => resolve())
      }),
  }
}

/** A body as JSON, else as its text; `null` when empty. */
function parsed(text: string): unknown {
  try {
    return text.length === 0 ? null : JSON.parse(text)
  } catch {
    return text
  }
}

/** The request's headers as received: name and value pairs, in order. */
function pairs(req: IncomingMessage): [string, string][] {
  const out: [string, string][] = []
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    out.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!])
  return out
}

/** The events of one Responses API answer, in order: a message saying `ok`. */
function responsesEvents(): { type: string; [key: string]: unknown }[] {
  const response = { id: 'resp_mock', object: 'response', status: 'completed', output: [] }
  const item = {
    type: 'message',
    id: 'msg_mock',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'ok', annotations: [] }],
  }
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 }
  return [
    { type: 'response.created', response },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: { ...response, output: [item], usage } },
  ]
}

/** `bytes` decoded by their `content-encoding` (gzip, deflate, br, zstd); as they are for any other. */
function decoded(bytes: Buffer, encoding: string | undefined): Buffer {
  const decode = {
    gzip: gunzipSync,
    deflate: inflateSync,
    br: brotliDecompressSync,
    zstd: zstdDecompressSync,
  }[encoding?.trim().toLowerCase() ?? '']
  if (decode === undefined || bytes.length === 0) return bytes
  try {
    return decode(bytes)
  } catch {
    return bytes
  }
}

function sse(events: readonly string[]): MockAnswer {
  const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
  return { status: 200, headers, chunks: events.map((e) => `${e}\n\n`), streamed: true }
}

function json(status: number, body: unknown): MockAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    chunks: [JSON.stringify(body)],
    streamed: false,
  }
}

/** The answer to a request at `path`: streamed (SSE) where the request asks for a stream, as the provider would. */
function reply(path: string, body: unknown): MockAnswer {
  const stream = (body as { stream?: unknown } | null)?.stream === true
  if (path.includes('/responses')) {
    const events = responsesEvents()
    if (!stream) return json(200, events.at(-1)!.response)
    return sse(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}`))
  }
  if (path.includes('/chat/completions')) {
    const base = { id: 'mock', created: 0, model: 'mock' }
    if (!stream) {
      const choice = { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
      return json(200, { ...base, object: 'chat.completion', choices: [choice], usage })
    }
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}`
    return sse([chunk({ role: 'assistant', content: 'ok' }, null), chunk({}, 'stop'), 'data: [DONE]'])
  }
  if (path.includes(':streamGenerateContent') || path.includes(':generateContent')) {
    const payload = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    }
    return path.includes(':streamGenerateContent')
      ? sse([`data: ${JSON.stringify(payload)}`])
      : json(200, payload)
  }
  if (path.includes(':countTokens')) return json(200, { totalTokens: 1 })
  if (path.includes('/messages/count_tokens')) return json(200, { input_tokens: 1 })
  if (path.includes('/messages')) {
    const usage = { input_tokens: 1, output_tokens: 1 }
    const message = { id: 'msg_mock', type: 'message', role: 'assistant', model: 'mock', usage }
    if (!stream)
      return json(200, { ...message, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' })
    return sse([
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { ...message, content: [], stop_reason: null } })}`,
      `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}`,
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } })}`,
      `event: content_block_stop\ndata: ${JSON.stringify({ type: 'content_block_stop', index: 0 })}`,
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage })}`,
      `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}`,
    ])
  }
  return json(404, {})
}
