import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request a harness sent to the mock model server. */
export interface CapturedRequest {
  method: string
  path: string
  body: unknown
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
 * OpenAI chat completions and responses, the Gemini API and the Anthropic
 * messages API.
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
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    let body: unknown = raw
    try {
      body = raw.length === 0 ? null : JSON.parse(raw)
    } catch {
      // Not JSON: kept as text.
    }
    const captured = { method: req.method ?? 'GET', path: req.url ?? '/', body }
    requests.push(captured)
    for (const w of waiters.splice(0)) {
      if (w.match(captured.path, captured.body)) w.resolve(captured)
      else waiters.push(w)
    }
    reply(captured.path, res)
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

function sse(res: ServerResponse, events: readonly string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const e of events) res.write(`${e}\n\n`)
  res.end()
}

function reply(path: string, res: ServerResponse): void {
  if (path.includes('/responses')) {
    const response = { id: 'resp_mock', object: 'response', status: 'completed', output: [] }
    const item = {
      type: 'message',
      id: 'msg_mock',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }],
    }
    const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 }
    sse(res, [
      `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response })}`,
      `event: response.output_item.done\ndata: ${JSON.stringify({ type: 'response.output_item.done', output_index: 0, item })}`,
      `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { ...response, output: [item], usage } })}`,
    ])
    return
  }
  if (path.includes('/chat/completions')) {
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'mock', object: 'chat.completion.chunk', created: 0, model: 'mock', choices: [{ index: 0, delta, finish_reason: finish }] })}`
    sse(res, [chunk({ role: 'assistant', content: 'ok' }, null), chunk({}, 'stop'), 'data: [DONE]'])
    return
  }
  if (path.includes(':streamGenerateContent') || path.includes(':generateContent')) {
    const payload = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    }
    if (path.includes(':streamGenerateContent')) sse(res, [`data: ${JSON.stringify(payload)}`])
    else {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(payload))
    }
    return
  }
  if (path.includes(':countTokens')) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ totalTokens: 1 }))
    return
  }
  if (path.includes('/messages')) {
    const usage = { input_tokens: 1, output_tokens: 1 }
    const message = {
      id: 'msg_mock',
      type: 'message',
      role: 'assistant',
      model: 'mock',
      content: [],
      stop_reason: null,
      usage,
    }
    sse(res, [
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message })}`,
      `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}`,
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } })}`,
      `event: content_block_stop\ndata: ${JSON.stringify({ type: 'content_block_stop', index: 0 })}`,
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage })}`,
      `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}`,
    ])
    return
  }
  res.writeHead(404, { 'content-type': 'application/json' })
  res.end('{}')
}
