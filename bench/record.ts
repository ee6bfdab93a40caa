/**
 * The relay of `sysprompt record` (issue 33): what going through it costs a
 * harness, against a direct connection to the same mock provider on
 * 127.0.0.1 (`--only=record`). Two relays in turn: "as in use", its own
 * process recording (a recorder over a memory store, a trivial mask;
 * bench/record-relay-child.ts), and "relay alone", in this process and not
 * recording (its own work, with no scheduling between processes). Clients
 * are undici with keep-alive. Each round sends one request directly and one
 * through the relay, the order alternating, so drift slows both sides
 * alike; before each round the relay has recorded the last exchange (a
 * harness's requests are seconds apart). Cases: an Anthropic Messages
 * request of 50 KB (a system prompt and tools) answered by 2 KB of JSON
 * (latency median and p95); the same request streamed (SSE), answered at
 * once (first byte: the hop's own cost); a stream of 200 chunks written as
 * produced, its first after a 20 ms think (first byte against a model's
 * latency, and the time per chunk after it). Wall time (a latency): on a
 * loaded machine the figures include the other tenants.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Agent } from 'undici'
import { startRelay } from '../src/record/relay/index.js'
import { heading, ms, ratio, table, wrap } from './format.js'

const THINK_MS = 20
const CHUNKS = 200
const SECRET = 'sk-bench-0123456789abcdef'
const CHILD = fileURLToPath(new URL('./record-relay-child.ts', import.meta.url))

/** A harness's request: a ~30 KB system prompt, ~20 KB of tools, a short conversation. */
function requestBody(stream: boolean, round: number): string {
  const rule = 'Read the files a change touches before you edit them, and keep each edit small and reviewed. '
  const system = Array.from({ length: 32 }, (_, i) => `## Section ${i}\n\n${rule.repeat(10)}`).join('\n\n')
  const tools = Array.from({ length: 24 }, (_, t) => ({
    name: `tool_${t}`,
    description: `Tool ${t}: ${rule.repeat(5)}`,
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file, relative to the project root.' },
        pattern: { type: 'string', description: 'What to look for, as a regular expression.' },
        limit: { type: 'integer', description: 'The most results returned.' },
      },
      required: ['path'],
    },
  }))
  return JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 8192,
    stream,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    tools,
    messages: [
      { role: 'user', content: `Fix the failing test (round ${round}). My key is ${SECRET}.` },
      { role: 'assistant', content: 'I will read the test first.' },
      { role: 'user', content: 'Go ahead.' },
    ],
  })
}

const USAGE = {
  input_tokens: 12,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 12_400,
  output_tokens: 420,
}

/** A ~2 KB Messages answer. */
const JSON_ANSWER = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'The test fails because the fixture path changed. '.repeat(38) }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: USAGE,
})

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/** Streams a Messages answer of `deltas` text deltas, each written in its own turn of the event loop. */
async function stream(res: ServerResponse, deltas: number, thinkMs: number): Promise<void> {
  if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs))
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const message = {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
  }
  res.write(
    sse('message_start', {
      type: 'message_start',
      message: { ...message, usage: { ...USAGE, output_tokens: 1 } },
    }),
  )
  res.write(
    sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
  )
  for (let i = 0; i < deltas; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    res.write(
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: ` word${i}` },
      }),
    )
  }
  res.write(sse('content_block_stop', { type: 'content_block_stop', index: 0 }))
  res.write(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: deltas },
    }),
  )
  res.end(sse('message_stop', { type: 'message_stop' }))
}

/** The mock: drains the request, then answers as `x-bench-answer` says (`json`, or `sse:<deltas>:<think ms>`). */
async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  for await (const _ of req);
  const [kind, deltas, think] = String(req.headers['x-bench-answer'] ?? 'json').split(':')
  if (kind === 'sse') return stream(res, Number(deltas), Number(think))
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(JSON_ANSWER) })
  res.end(JSON_ANSWER)
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

interface Sample {
  total: number
  firstByte: number
}

/** One request; its total time and time to the first body byte, in ms. */
async function send(client: Agent, origin: string, body: string, answerAs: string): Promise<Sample> {
  const t0 = performance.now()
  const response = await client.request({
    origin,
    path: '/v1/messages?beta=true',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'x-api-key': SECRET,
      'user-agent': 'claude-cli/2.1.0 (external, bench)',
      'x-bench-answer': answerAs,
    },
    body,
  })
  let firstByte = 0
  for await (const _ of response.body) if (firstByte === 0) firstByte = performance.now() - t0
  if (response.statusCode !== 200) throw new Error(`${origin}: status ${response.statusCode}`)
  return { total: performance.now() - t0, firstByte }
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
const sorted = (values: number[]) => values.slice().sort((a, b) => a - b)
const median = (values: number[]) => percentile(sorted(values), 0.5)
const p95 = (values: number[]) => percentile(sorted(values), 0.95)

/** The ways a request reaches the mock: directly, through a bare TCP hop, through the relay as in use, through the relay alone. */
const ROUTES = ['direct', 'hop', 'relay', 'alone'] as const
type Route = (typeof ROUTES)[number]
type Samples = Record<Route, Sample[]>

/**
 * `n` rounds (after `warmup` untimed ones), each one request per route,
 * the order rotating; `settle` (untimed) before each round.
 */
async function rounds(
  n: number,
  warmup: number,
  stream: boolean,
  settle: () => Promise<void>,
  run: (route: Route, body: string) => Promise<Sample>,
): Promise<Samples> {
  const out: Samples = { direct: [], hop: [], relay: [], alone: [] }
  for (let r = -warmup; r < n; r++) {
    const body = requestBody(stream, r)
    await settle()
    for (let k = 0; k < ROUTES.length; k++) {
      const route = ROUTES[(r + warmup + k) % ROUTES.length]!
      const sample = await run(route, body)
      if (r >= 0) out[route].push(sample)
    }
  }
  return out
}

/** A child process of bench/record-relay-child.ts: `relay` (recording) or `hop` (a bare TCP pass-through). */
async function child(mode: 'relay' | 'hop', mockUrl: string) {
  const process = fork(CHILD, [mode, mockUrl, SECRET], { execArgv: ['--import', 'tsx'], stdio: 'inherit' })
  const ask = async (message: string): Promise<unknown> => {
    const answered = once(process, 'message')
    if (message !== '') process.send(message)
    return (await answered)[0]
  }
  const { url } = (await ask('')) as { url: string }
  return { url, ask }
}

interface Measured {
  json: Samples
  sseNow: Samples
  sseThink: Samples
}

const total = (s: Sample) => s.total
const firstByte = (s: Sample) => s.firstByte
const perChunk = (s: Sample) => (s.total - s.firstByte) / CHUNKS

const LABELS: Record<Exclude<Route, 'direct'>, string> = {
  relay: 'relay as in use',
  hop: 'bare TCP hop',
  alone: 'relay alone',
}

function rows(name: string, m: Samples, pick: (s: Sample) => number, unit = 'ms', scale = 1): string[][] {
  const d = median(m.direct.map(pick)) * scale
  const cell = (values: number[]) => `${ms(median(values) * scale)} / ${ms(p95(values) * scale)} ${unit}`
  return (['relay', 'hop', 'alone'] as const).map((route) => {
    const r = median(m[route].map(pick)) * scale
    return [
      `${name}: ${LABELS[route]}`,
      cell(m.direct.map(pick)),
      cell(m[route].map(pick)),
      ratio(r / d),
      `${r - d >= 0 ? '+' : ''}${ms(r - d)} ${unit}`,
    ]
  })
}

const says = (pass: boolean) => (pass ? 'meets' : 'misses')

export async function runRecordBench({ quick }: { quick: boolean }): Promise<void> {
  console.log(heading('record: the relay against a direct connection (loopback mock provider)'))
  const requests = quick ? 40 : 300
  const streams = quick ? 20 : 100
  const mock = createServer((req, res) => void answer(req, res).catch(() => res.destroy()))
  const mockUrl = await listen(mock)
  const client = new Agent({ keepAliveTimeout: 30_000 })
  const relay = await child('relay', mockUrl)
  const hop = await child('hop', mockUrl)
  const alone = await startRelay({ upstreams: { anthropic: mockUrl } })
  const origin: Record<Route, string> = { direct: mockUrl, hop: hop.url, relay: relay.url, alone: alone.url }
  // A harness's requests are seconds apart: the last exchange is recorded before the next round.
  const settle = async () => {
    await relay.ask('idle')
  }
  try {
    const m: Measured = {
      json: await rounds(requests, 20, false, settle, (route, body) =>
        send(client, origin[route], body, 'json'),
      ),
      sseNow: await rounds(requests, 20, true, settle, (route, body) =>
        send(client, origin[route], body, 'sse:3:0'),
      ),
      sseThink: await rounds(streams, 5, true, settle, (route, body) =>
        send(client, origin[route], body, `sse:${CHUNKS}:${THINK_MS}`),
      ),
    }
    const recorded = (await relay.ask('close')) as Record<string, number>
    await hop.ask('close')
    console.log(
      table(
        ['case: route', 'direct median / p95', 'route median / p95', 'route/direct', 'added (medians)'],
        [
          ...rows('request, 50 KB up, 2 KB JSON down', m.json, total),
          ...rows('first byte, SSE answered at once', m.sseNow, firstByte),
          ...rows(`first byte, SSE first token after ${THINK_MS} ms`, m.sseThink, firstByte),
          ...rows(`per chunk after it (${CHUNKS} chunks)`, m.sseThink, perChunk, 'µs', 1000),
        ],
        ['l', 'r', 'r', 'r', 'r'],
      ),
    )
    const addedMs = (route: Route) => median(m.json[route].map(total)) - median(m.json.direct.map(total))
    const firstRatio = (route: Route) =>
      median(m.sseThink[route].map(firstByte)) / median(m.sseThink.direct.map(firstByte))
    const goals = (route: 'relay' | 'alone') => [
      [
        `${LABELS[route]}: added per request at the median, goal < 1 ms`,
        `${ms(addedMs(route))} ms`,
        says(addedMs(route) < 1),
      ],
      [
        `${LABELS[route]}: first byte (first token after ${THINK_MS} ms), goal within 5 %`,
        `${((firstRatio(route) - 1) * 100).toFixed(1)} %`,
        says(firstRatio(route) <= 1.05),
      ],
    ]
    const beyondHop = addedMs('relay') - addedMs('hop')
    console.log(
      table(
        ['goal', 'measured', 'verdict'],
        [
          ...goals('relay'),
          [`relay as in use beyond a bare TCP hop, goal < 1 ms`, `${ms(beyondHop)} ms`, says(beyondHop < 1)],
          ...goals('alone'),
        ],
        ['l', 'r', 'l'],
      ),
    )
    console.log(
      wrap(
        `${requests} requests per route per case (${streams} streams of ${CHUNKS} chunks), the routes ` +
          `interleaved; wall time, load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} ` +
          `cores. Relay as in use: its own process, recording (a recorder over a memory store): ` +
          `${recorded.recorded} of ${recorded.requests} requests recorded (${recorded.dropped} dropped, ` +
          `${recorded.warnings} warnings), ${ms(recorded.recordMedian!)} ms per exchange at the median, ` +
          `off the request path. Bare TCP hop: a pass-through socket in its own process, what any ` +
          `process in between costs (the scheduler's wake-ups; large on a loaded machine). Relay alone: ` +
          `in this process, not recording: its own work. "Answered at once" is a hop's cost against a ` +
          `sub-millisecond direct first byte; the 5 % goal is read against a model's first token, here ` +
          `${THINK_MS} ms. Per chunk: the stream's time after its first byte over its chunks; a relay ` +
          `that batches chunks can come out below direct.`,
      ),
    )
  } finally {
    await client.close()
    await alone.close()
    relay.ask('close').catch(() => {})
    await new Promise((resolve) => mock.close(resolve))
  }
}
