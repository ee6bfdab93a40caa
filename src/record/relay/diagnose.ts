/*
 * `--diagnose`: the one rewrite the relay makes, and only when asked. For
 * Anthropic Messages it adds the cache-diagnostics beta to `anthropic-beta`
 * and names the conversation's previous message in
 * `diagnostics.previous_message_id`; for OpenAI Responses it names the
 * previous response in `prompt_cache_options.comparison_response_id`. The
 * provider then explains its own cache misses in the response, which the
 * recorder keeps (ANCHORS "Ground truth").
 *
 * The previous response is the last one this relay saw in the same
 * conversation (keyed as the parsers key it). The body is decoded, edited
 * and encoded again the way it came; one that is not a JSON object, or
 * whose encoding is unknown, is forwarded as sent.
 */
import { promisify } from 'node:util'
import { brotliCompress, deflate, gzip, type ZlibOptions, zstdCompress } from 'node:zlib'
import type { TrafficEndpoint } from '../../compile/call-record.js'
import { parseJsonText } from '../parse/body.js'
import { parseRequest, parseResponse } from '../parse/index.js'
import type { RequestHeaders } from '../parse/types.js'
import { type BodyCopy, captureBody } from './body-copy.js'
import type { HeaderPair } from './headers.js'

/** The `anthropic-beta` value that turns on Anthropic's cache diagnostics. */
export const DIAGNOSIS_BETA = 'cache-diagnosis-2026-04-07'

/** How many conversations the relay remembers a previous response for; the least recently used is forgotten first. */
export const DIAGNOSED_CONVERSATIONS = 1000

type Diagnosed = 'anthropic.messages' | 'openai.responses'

/** Whether requests to an endpoint are rewritten under `--diagnose`. */
export function isDiagnosed(endpoint: TrafficEndpoint | undefined): endpoint is Diagnosed {
  return endpoint === 'anthropic.messages' || endpoint === 'openai.responses'
}

/**
 * The id of the last response per conversation, bounded. An id is stored as
 * a promise the moment its response ends (before the client sees the end),
 * so the conversation's next request always finds it, even while the
 * response is still being decoded.
 */
export class PreviousResponses {
  #ids = new Map<string, Promise<string | undefined>>()

  constructor(readonly limit: number = DIAGNOSED_CONVERSATIONS) {}

  get size(): number {
    return this.#ids.size
  }

  get(conversation: string): Promise<string | undefined> | undefined {
    const id = this.#ids.get(conversation)
    if (id !== undefined) {
      this.#ids.delete(conversation)
      this.#ids.set(conversation, id)
    }
    return id
  }

  /** Remembers a response's id; a response without one (an error) keeps the id before it. */
  set(conversation: string, id: Promise<string | undefined>): void {
    const prior = this.#ids.get(conversation)
    this.#ids.delete(conversation)
    this.#ids.set(
      conversation,
      id.then(
        (found) => found ?? prior,
        () => prior,
      ),
    )
    if (this.#ids.size > this.limit) this.#ids.delete(this.#ids.keys().next().value as string)
  }
}

/** A diagnosed request: the key its response's id goes under, and what to forward when it changed. */
export interface DiagnosedRequest {
  conversation?: string
  rewritten?: { body: Buffer; headers: HeaderPair[] }
}

type Encoder = (input: Buffer, options: ZlibOptions) => Promise<Buffer>

const ENCODERS: ReadonlyMap<string, Encoder> = new Map<string, Encoder>([
  ['gzip', promisify(gzip)],
  ['x-gzip', promisify(gzip)],
  ['br', promisify(brotliCompress) as Encoder],
  ['zstd', promisify(zstdCompress) as Encoder],
  // HTTP's `deflate` is zlib-wrapped (RFC 9110 §8.4.1.2), whatever the client sent.
  ['deflate', promisify(deflate)],
])

async function encode(bytes: Buffer, contentEncoding: string | undefined): Promise<Buffer | undefined> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  let out = bytes
  for (const coding of codings) {
    const encoder = ENCODERS.get(coding)
    if (encoder === undefined) return undefined
    out = await encoder(out, {})
  }
  return out
}

type JsonObject = Record<string, unknown>

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The JSON text with `member` set to `value` at the top level. A new member
 * is spliced in before the closing brace, so every byte the client wrote
 * stays as written (the cached prefix included); an existing one is merged
 * and the whole object written again.
 */
function withMember(text: string, body: JsonObject, member: string, value: JsonObject): string {
  if (!Object.hasOwn(body, member)) {
    const end = text.lastIndexOf('}')
    const comma = Object.keys(body).length === 0 ? '' : ','
    return `${text.slice(0, end)}${comma}${JSON.stringify(member)}:${JSON.stringify(value)}${text.slice(end)}`
  }
  return JSON.stringify({ ...body, [member]: { ...(body[member] as JsonObject), ...value } })
}

/** The `anthropic-beta` headers with the diagnosis beta comma-joined to the last one sent, or added. */
function withBeta(pairs: readonly HeaderPair[]): HeaderPair[] {
  let at = -1
  pairs.forEach(([name], i) => {
    if (name.toLowerCase() === 'anthropic-beta') at = i
  })
  const sent = pairs
    .filter(([name]) => name.toLowerCase() === 'anthropic-beta')
    .flatMap(([, value]) => value.split(','))
    .map((token) => token.trim())
  if (sent.includes(DIAGNOSIS_BETA)) return [...pairs]
  if (at === -1) return [...pairs, ['anthropic-beta', DIAGNOSIS_BETA]]
  const [name, value] = pairs[at]!
  const joined = value.trim() === '' ? DIAGNOSIS_BETA : `${value},${DIAGNOSIS_BETA}`
  return pairs.map((pair, i) => (i === at ? [name, joined] : pair))
}

function withLength(pairs: readonly HeaderPair[], length: number): HeaderPair[] {
  return [
    ...pairs.filter(([name]) => name.toLowerCase() !== 'content-length'),
    ['content-length', String(length)],
  ]
}

/** The edited body text, or `undefined` when it stays as sent. */
function editedText(
  endpoint: Diagnosed,
  text: string,
  body: JsonObject,
  previousId: string | undefined,
): string | undefined {
  if (previousId === undefined) return undefined
  // A value the client set itself is left alone: it asked for that comparison.
  const member = endpoint === 'anthropic.messages' ? 'diagnostics' : 'prompt_cache_options'
  const field = endpoint === 'anthropic.messages' ? 'previous_message_id' : 'comparison_response_id'
  const current = body[member]
  if (current !== undefined && !isObject(current)) return undefined
  if (current !== undefined && current[field] !== undefined) return undefined
  return withMember(text, body, member, { [field]: previousId })
}

/**
 * Prepares one request for forwarding under `--diagnose`: reads the whole
 * request copy (decoded), looks up the conversation's previous response and
 * rewrites. `pairs` are the headers to forward; `headers` Node's view of
 * them, for the conversation key.
 */
export async function diagnoseRequest(
  endpoint: Diagnosed,
  copy: BodyCopy,
  contentEncoding: string | undefined,
  pairs: readonly HeaderPair[],
  headers: RequestHeaders,
  previous: PreviousResponses,
): Promise<DiagnosedRequest> {
  const decoded = await captureBody(copy, contentEncoding)
  if (decoded.state !== 'complete' || decoded.bytes === undefined) return {}
  const text = Buffer.from(decoded.bytes).toString('utf8')
  const json = parseJsonText(text)
  if (!json.ok || !isObject(json.value)) return {}
  const parsed = parseRequest(endpoint, decoded.bytes, headers)
  const conversation = parsed.ok ? `${endpoint} ${parsed.conversation}` : undefined
  const previousId = conversation === undefined ? undefined : await previous.get(conversation)
  const edited = editedText(endpoint, text, json.value, previousId)
  const key = conversation === undefined ? {} : { conversation }
  if (edited === undefined && endpoint !== 'anthropic.messages') return key
  const body = edited === undefined ? copy.bytes() : await encode(Buffer.from(edited), contentEncoding)
  if (body === undefined) return key
  const beta = endpoint === 'anthropic.messages' ? withBeta(pairs) : [...pairs]
  return { ...key, rewritten: { body, headers: withLength(beta, body.byteLength) } }
}

/** What to forward for a diagnosed request, and the key its response's id goes under. */
export interface DiagnosedForward {
  body: Buffer | AsyncIterable<Buffer>
  headers: HeaderPair[]
  conversation?: string
}

/**
 * Reads a diagnosed request's body whole (the one place the relay waits for
 * a request body before forwarding it: the edit needs all of it), each chunk
 * into `copy` for the record, then rewrites it. A body past the copy's cap
 * is forwarded as sent, its read chunks first, then the rest as it streams.
 */
export async function prepareDiagnosed(
  endpoint: Diagnosed,
  source: AsyncIterator<Buffer>,
  copy: BodyCopy,
  contentEncoding: string | undefined,
  pairs: readonly HeaderPair[],
  headers: RequestHeaders,
  previous: PreviousResponses,
): Promise<DiagnosedForward> {
  const chunks: Buffer[] = []
  let size = 0
  for (let next = await source.next(); ; next = await source.next()) {
    if (next.done) break
    chunks.push(next.value)
    copy.add(next.value)
    size += next.value.byteLength
    if (size > copy.cap) {
      const rest = { [Symbol.asyncIterator]: () => source }
      return {
        headers: [...pairs],
        body: (async function* () {
          yield* chunks
          for await (const chunk of rest) {
            copy.add(chunk)
            yield chunk
          }
        })(),
      }
    }
  }
  const diagnosed = await diagnoseRequest(endpoint, copy, contentEncoding, pairs, headers, previous)
  return {
    ...(diagnosed.conversation === undefined ? {} : { conversation: diagnosed.conversation }),
    body: diagnosed.rewritten?.body ?? Buffer.concat(chunks, size),
    headers: diagnosed.rewritten?.headers ?? [...pairs],
  }
}

/** The id of a finished response, read from its copy; `undefined` when it has none or cannot be read. */
export async function responseId(
  endpoint: Diagnosed,
  copy: BodyCopy,
  contentEncoding: string | undefined,
  streamed: boolean,
): Promise<string | undefined> {
  const decoded = await captureBody(copy, contentEncoding)
  if (decoded.state !== 'complete' || decoded.bytes === undefined) return undefined
  const parsed = parseResponse(endpoint, decoded.bytes, { streamed })
  return parsed.ok ? parsed.id : undefined
}
