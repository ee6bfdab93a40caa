/*
 * A mock model provider on 127.0.0.1 for the recorder's tests: Anthropic
 * Messages (and count_tokens), OpenAI Responses and Chat Completions, Gemini
 * generateContent and streamGenerateContent, streamed (SSE) and not. Its
 * usage comes from `mock-cache-rules.test-helper.ts` (the providers'
 * caching rules applied to what was sent), not from a script of numbers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type CacheRules, type CacheRulesOptions, createCacheRules } from './mock-cache-rules.test-helper.js'

/** One request the mock answered, with the usage it reported. */
export interface MockCall {
  path: string
  body: unknown
  headers: IncomingMessage['headers']
  usage: unknown
}

/** A running mock provider. */
export interface MockProvider {
  url: string
  calls: MockCall[]
  rules: CacheRules
  close(): Promise<void>
}

type Obj = Record<string, unknown>

/** Starts the mock on an ephemeral port of 127.0.0.1. */
export async function startMockProvider(options: CacheRulesOptions = {}): Promise<MockProvider> {
  const rules = createCacheRules(options)
  const calls: MockCall[] = []
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: String(error) } })
      else res.destroy()
    })
  })
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    let body: Obj
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj
    } catch {
      json(res, 400, { error: { message: 'the body is not JSON' } })
      return
    }
    const path = req.url ?? '/'
    const call: MockCall = { path, body, headers: req.headers, usage: undefined }
    calls.push(call)
    answer(rules, path, body, res, (usage) => {
      call.usage = usage
    })
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    rules,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

function sse(res: ServerResponse, events: readonly { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const e of events)
    res.write(
      `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    )
  res.end()
}

function answer(
  rules: CacheRules,
  path: string,
  body: Obj,
  res: ServerResponse,
  note: (usage: unknown) => void,
): void {
  const pathname = path.split('?')[0]!
  const stream = body.stream === true
  if (pathname.endsWith('/messages/count_tokens')) {
    const usage = { input_tokens: rules.anthropicCount(body) }
    note(usage)
    json(res, 200, usage)
  } else if (pathname.endsWith('/messages')) {
    const usage = rules.anthropic(body)
    note(usage)
    const message = {
      id: 'msg_mock',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [] as unknown[],
    }
    if (!stream)
      json(res, 200, { ...message, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage })
    else
      sse(res, [
        {
          event: 'message_start',
          data: { type: 'message_start', message: { ...message, usage: { ...usage, output_tokens: 0 } } },
        },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'message_delta',
          data: {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn' },
            usage: { output_tokens: usage.output_tokens },
          },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ])
  } else if (pathname.endsWith('/responses')) {
    const { input, cached } = rules.openai(body, 'responses')
    const usage = {
      input_tokens: input,
      input_tokens_details: { cached_tokens: cached },
      output_tokens: 1,
      total_tokens: input + 1,
    }
    note(usage)
    const item = {
      type: 'message',
      id: 'msg_mock',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }],
    }
    const response = {
      id: 'resp_mock',
      object: 'response',
      model: body.model,
      status: 'completed',
      output: [item],
      usage,
    }
    if (!stream) json(res, 200, response)
    else
      sse(res, [
        {
          event: 'response.created',
          data: {
            type: 'response.created',
            response: { ...response, status: 'in_progress', output: [], usage: null },
          },
        },
        {
          event: 'response.output_item.done',
          data: { type: 'response.output_item.done', output_index: 0, item },
        },
        { event: 'response.completed', data: { type: 'response.completed', response } },
      ])
  } else if (pathname.endsWith('/chat/completions')) {
    const { input, cached } = rules.openai(body, 'chat')
    const usage = {
      prompt_tokens: input,
      completion_tokens: 1,
      total_tokens: input + 1,
      prompt_tokens_details: { cached_tokens: cached },
    }
    note(usage)
    const base = { id: 'chatcmpl-mock', created: 0, model: body.model }
    if (!stream)
      json(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage,
      })
    else {
      const chunk = (extra: Obj) => ({ data: { ...base, object: 'chat.completion.chunk', ...extra } })
      const withUsage = (body.stream_options as Obj | undefined)?.include_usage === true
      sse(res, [
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        ...(withUsage ? [chunk({ choices: [], usage })] : []),
        { data: '[DONE]' },
      ])
    }
  } else {
    const gemini = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(pathname)
    if (gemini === null) {
      json(res, 404, { error: { message: `the mock does not serve ${pathname}` } })
      return
    }
    const { prompt, cached } = rules.gemini(body, gemini[1]!)
    // Gemini leaves the cached count out when nothing was read from cache.
    const usageMetadata = {
      promptTokenCount: prompt,
      ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
      candidatesTokenCount: 1,
      totalTokenCount: prompt + 1,
    }
    note(usageMetadata)
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata,
      responseId: 'gemini-mock',
    }
    if (gemini[2] === 'generateContent') json(res, 200, chunk)
    else if (path.includes('alt=sse')) sse(res, [{ data: chunk }])
    else json(res, 200, [chunk])
  }
}
