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

interface Side {
  direct: Sample[]
  relay: Sample[]
}

/**
 * `n` rounds (after `warmup` untimed ones), each one request per side, the
 * order alternating; `settle` (untimed) before each round.
 */
async function rounds(
  n: number,
  warmup: number,
  stream: boolean,
  settle: (() => Promise<void>) | undefined,
  run: (side: 'direct' | 'relay', body: string) => Promise<Sample>,
): Promise<Side> {
  const out: Side = { direct: [], relay: [] }
  for (let r = -warmup; r < n; r++) {
    const body = requestBody(stream, r)
    await settle?.()
    const order: ('direct' | 'relay')[] = r % 2 === 0 ? ['direct', 'relay'] : ['relay', 'direct']
    for (const side of order) {
      const sample = await run(side, body)
      if (r >= 0) out[side].push(sample)
    }
  }
  return out
}

/** A relay the rounds go through: its URL, `settle` (waits until it has recorded every exchange so far), `close`. */
interface RelayUnderTest {
  url: string
  settle: () => Promise<void>
  close: () => Promise<string>
}

/** The relay as in use: its own process, recording. */
async function relayProcess(mockUrl: string): Promise<RelayUnderTest> {
  const child = fork(CHILD, [mockUrl, SECRET], { execArgv: ['--import', 'tsx'], stdio: 'inherit' })
  const next = () => once(child, 'message').then(([message]) => message as unknown)
  const { url } = (await next()) as { url: string }
  return {
    url,
    settle: async () => {
      const answered = next()
      child.send('idle')
      await answered
    },
    close: async () => {
      const answered = next()
      child.send('close')
      const r = (await answered) as Record<string, number>
      return (
        `recorded ${r.recorded} of ${r.requests} requests (${r.dropped} dropped, ${r.warnings} warnings), ` +
        `${ms(r.recordMedian!)} ms per exchange at the median, off the request path`
      )
    },
  }
}

/** The relay alone, in this process and not recording: its own work, with no scheduling between processes. */
async function relayInProcess(mockUrl: string): Promise<RelayUnderTest> {
  const relay = await startRelay({ upstreams: { anthropic: mockUrl } })
  const close = async () => {
    await relay.close()
    return 'not recording'
  }
  return { url: relay.url, settle: async () => {}, close }
}

interface Measured {
  json: Side
  sseNow: Side
  sseThink: Side
}

async function measure(
  client: Agent,
  mockUrl: string,
  relay: RelayUnderTest,
  requests: number,
  streams: number,
): Promise<Measured> {
  const origin = { direct: mockUrl, relay: relay.url }
  // A harness's requests are seconds apart: the last exchange is recorded before the next round.
  const json = await rounds(requests, 20, false, relay.settle, (side, body) =>
    send(client, origin[side], body, 'json'),
  )
  const sseNow = await rounds(requests, 20, true, relay.settle, (side, body) =>
    send(client, origin[side], body, 'sse:3:0'),
  )
  const sseThink = await rounds(streams, 5, true, relay.settle, (side, body) =>
    send(client, origin[side], body, `sse:${CHUNKS}:${THINK_MS}`),
  )
  return { json, sseNow, sseThink }
}

const total = (s: Sample) => s.total
const firstByte = (s: Sample) => s.firstByte
const perChunk = (s: Sample) => (s.total - s.firstByte) / CHUNKS

function row(name: string, side: Side, pick: (s: Sample) => number, unit = 'ms', scale = 1): string[] {
  const d = median(side.direct.map(pick)) * scale
  const r = median(side.relay.map(pick)) * scale
  return [
    name,
    `${ms(d)} ${unit}`,
    `${ms(p95(side.direct.map(pick)) * scale)} ${unit}`,
    `${ms(r)} ${unit}`,
    `${ms(p95(side.relay.map(pick)) * scale)} ${unit}`,
    ratio(r / d),
    `${r - d >= 0 ? '+' : ''}${ms(r - d)} ${unit}`,
  ]
}

function rows(label: string, m: Measured): string[][] {
  return [
    row(`${label}: request, 50 KB up, 2 KB JSON down`, m.json, total),
    row(`${label}: first byte, SSE answered at once`, m.sseNow, firstByte),
    row(`${label}: first byte, SSE first token after ${THINK_MS} ms`, m.sseThink, firstByte),
    row(`${label}: per chunk after it (${CHUNKS} chunks)`, m.sseThink, perChunk, 'µs', 1000),
  ]
}

export async function runRecordBench({ quick }: { quick: boolean }): Promise<void> {
  console.log(heading('record: the relay against a direct connection (loopback mock provider)'))
  const requests = quick ? 40 : 300
  const streams = quick ? 20 : 100
  const mock = createServer((req, res) => void answer(req, res).catch(() => res.destroy()))
  const mockUrl = await listen(mock)
  const client = new Agent({ keepAliveTimeout: 30_000 })
  const notes: string[] = []
  const run = async (label: string, start: (mockUrl: string) => Promise<RelayUnderTest>) => {
    const relay = await start(mockUrl)
    try {
      return await measure(client, mockUrl, relay, requests, streams)
    } finally {
      notes.push(`${label}: ${await relay.close()}.`)
    }
  }
  try {
    const inUse = await run('as in use', relayProcess)
    const alone = await run('relay alone', relayInProcess)
    console.log(
      table(
        ['case', 'direct median', 'direct p95', 'relay median', 'relay p95', 'relay/direct', 'added'],
        [...rows('as in use', inUse), ...rows('relay alone', alone)],
        ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    )
    const goals = (label: string, m: Measured) => {
      const added = median(m.json.relay.map(total)) - median(m.json.direct.map(total))
      const first = median(m.sseThink.relay.map(firstByte)) / median(m.sseThink.direct.map(firstByte))
      const says = (pass: boolean) => (pass ? 'meets' : 'misses')
      return [
        [`${label}: added per request at the median, goal < 1 ms`, `${ms(added)} ms`, says(added < 1)],
        [
          `${label}: first byte (first token after ${THINK_MS} ms), goal within 5 %`,
          `${((first - 1) * 100).toFixed(1)} %`,
          says(first <= 1.05),
        ],
      ]
    }
    console.log(
      table(
        ['goal', 'measured', 'verdict'],
        [...goals('as in use', inUse), ...goals('relay alone', alone)],
        ['l', 'r', 'l'],
      ),
    )
    console.log(
      wrap(
        `${requests} requests per side per case (${streams} streams of ${CHUNKS} chunks), direct and ` +
          `through the relay interleaved; wall time, load average ${loadavg()[0]!.toFixed(1)} on ` +
          `${availableParallelism()} cores. "As in use": the relay in its own process, recording (a ` +
          `recorder over a memory store); each hop then waits for the scheduler, which on a loaded machine ` +
          `costs more than the relay's code. "Relay alone": in this process, not recording: its own work. ` +
          `"Answered at once" is the hop's cost against a sub-millisecond direct first byte; the 5 % goal ` +
          `is read against a model's first token, here ${THINK_MS} ms. ${notes.join(' ')}`,
      ),
    )
  } finally {
    await client.close()
    await new Promise((resolve) => mock.close(resolve))
  }
}
