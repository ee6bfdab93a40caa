/*
 * OpenAI Responses (`/v1/responses`): `instructions`, then `tools`, then
 * `input` in order (see openai-shared.ts for the order). Caching is
 * automatic (no marks); `prompt_cache_key` routes requests to a cache.
 *
 * Codex sends its base prompt as `instructions`, its permissions as a
 * leading developer message, and then, in user-role input before the
 * user's prompt, the AGENTS.md files as a text starting `# AGENTS.md
 * instructions for <dir>` (older releases: `<user_instructions>`) and an
 * `<environment_context>` text holding `<cwd>`: those texts are the
 * `message:1` part. It names its session in a `session-id` header (`session_id` before 0.171).
 */
import type { TrafficEndpoint } from '../../compile/call-record.js'
import { failure, parseJsonText } from './body.js'
import { isInstructionRole, openaiUsage, toolName } from './openai-shared.js'
import {
  conversationOf,
  dropUndefined,
  elementHash,
  findWorkingDirectory,
  header,
  isObject,
  type JsonObject,
  makePart,
  optional,
  stringAt,
  toolSections,
} from './shared.js'
import { parseSse } from './sse.js'
import type { ParsedPart, ParsedRequest, ParsedResponse, ParseFailure, RequestHeaders } from './types.js'

/** How Codex's injected texts begin. */
const CODEX_INJECTED = ['# AGENTS.md instructions for ', '<environment_context>', '<user_instructions>']

/** A Responses request body (already JSON) read into parts and identity. */
export function parseResponsesRequest(
  endpoint: TrafficEndpoint,
  body: unknown,
  headers: RequestHeaders,
): ParsedRequest | ParseFailure {
  if (!isObject(body)) return failure('an OpenAI Responses body is a JSON object')
  const model = stringAt(body, 'model')
  if (model === undefined) return failure('an OpenAI Responses body names its `model` as a string')
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input
  if (!Array.isArray(input)) return failure('an OpenAI Responses body has an `input` string or list')
  const parts: ParsedPart[] = []
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== 'string') return failure('`instructions` is a string')
    parts.push(makePart('system:1', 'system', body.instructions, body.instructions))
  }
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return failure('`tools` is a list')
    const section = toolSections()
    for (const tool of body.tools) {
      const name = isObject(tool) ? toolName(tool) : undefined
      if (name === undefined) return failure('each tool is an object with a `name` or a `type`')
      parts.push(makePart(section(name), 'tool', tool))
    }
  }
  let at = 0
  let system = parts.filter((p) => p.kind === 'system').length
  while (at < input.length && isObject(input[at]) && isInstructionRole((input[at] as JsonObject).role)) {
    const item = input[at] as JsonObject
    parts.push(makePart(`system:${++system}`, 'system', item, contentTexts(item.content).join('\n')))
    at++
  }
  const { injected, rest, next } = takeInjected(input, at)
  const injectedText = injected.map((c) => (c as JsonObject).text as string).join('\n')
  if (injected.length > 0) parts.push(makePart('message:1', 'injected', injected, injectedText))

  const messageHashes: string[] = []
  const messageBodies: string[] = []
  let firstUser: string | undefined
  if (rest !== undefined) {
    messageHashes.push(elementHash(rest))
    messageBodies.push(JSON.stringify(rest))
    firstUser = elementHash(rest)
  }
  for (const item of input.slice(next)) {
    if (!isObject(item)) return failure('each `input` item is an object')
    messageHashes.push(elementHash(item))
    messageBodies.push(JSON.stringify(item))
    if (firstUser === undefined && item.role === 'user') firstUser = elementHash(item.content)
  }
  const sessionId = header(headers, 'session-id') ?? header(headers, 'session_id')
  const identity = { sessionId, firstUserMessageHash: firstUser }
  const systemTexts = parts.filter((p) => p.kind === 'system').map((p) => p.text)
  return {
    ok: true,
    endpoint,
    model,
    parts,
    marks: [],
    ...optional('promptCacheKey', stringAt(body, 'prompt_cache_key')),
    messageHashes,
    messageBodies,
    identity: dropUndefined(identity),
    conversation: conversationOf(identity),
    ...optional('workingDirectory', findWorkingDirectory([injectedText, ...systemTexts])),
    streamed: body.stream === true,
  }
}

/**
 * Codex's injected content items, from the user messages starting at
 * `start`: items whose text starts as Codex's do, until the first that
 * does not. `rest` is the remaining content of the message where they
 * stopped (the user's prompt), `next` the first input item after it.
 */
function takeInjected(
  input: unknown[],
  start: number,
): { injected: unknown[]; rest?: unknown; next: number } {
  const injected: unknown[] = []
  let at = start
  while (at < input.length) {
    const item = input[at]
    if (!isObject(item) || item.role !== 'user' || !Array.isArray(item.content)) break
    const content = item.content
    let n = 0
    while (n < content.length && isCodexInjected(content[n])) n++
    injected.push(...content.slice(0, n))
    if (n < content.length) return { injected, rest: content.slice(n), next: at + 1 }
    at++
  }
  return { injected, next: at }
}

function isCodexInjected(item: unknown): boolean {
  if (!isObject(item) || typeof item.text !== 'string') return false
  const text = item.text.trimStart()
  return CODEX_INJECTED.some((start) => text.startsWith(start))
}

function contentTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  return content.flatMap((c) => (isObject(c) && typeof c.text === 'string' ? [c.text] : []))
}

/** A Responses response: JSON, or the SSE stream whose `response.completed` (or `.incomplete`, `.failed`) event holds the usage. */
export function parseResponsesResponse(text: string, streamed: boolean): ParsedResponse | ParseFailure {
  if (!streamed || text.trimStart().startsWith('{')) {
    const json = parseJsonText(text)
    if (!json.ok) return json
    if (!isObject(json.value)) return failure('an OpenAI response is a JSON object')
    return readResponse(json.value)
  }
  // Events carry the response as it stands; the last one with usage (the final event) is read.
  let latest: JsonObject | undefined
  let withUsage: JsonObject | undefined
  for (const event of parseSse(text)) {
    const json = parseJsonText(event.data)
    if (!json.ok || !isObject(json.value) || !isObject(json.value.response)) continue
    latest = json.value.response
    if (isObject(latest.usage)) withUsage = latest
  }
  const response = withUsage ?? latest
  if (response === undefined) return failure('the stream has no `response` event')
  return readResponse(response)
}

function readResponse(response: JsonObject): ParsedResponse {
  return {
    ok: true,
    ...optional('id', stringAt(response, 'id')),
    ...optional(
      'usage',
      openaiUsage(response.usage, 'input_tokens', 'output_tokens', 'input_tokens_details'),
    ),
    ...optional('diagnostics', response.prompt_cache_diagnostics ?? undefined),
  }
}
