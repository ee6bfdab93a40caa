/*
 * OpenAI Chat Completions (`/v1/chat/completions`): the leading system (or
 * developer) messages, then `tools`, then the conversation (see
 * openai-shared.ts for the order; an OpenAI-compatible server for another
 * model renders by its own chat template). OpenAI caches automatically;
 * gateways in front of Anthropic models take `cache_control` on content
 * parts, which are read as marks.
 *
 * opencode and pi put everything they add (instruction files, skills, the
 * working directory) in the system prompt, and nothing in the first user
 * message, so there is no `message:1` part: opencode states the directory
 * in an `<env>` block (`Working directory: …`), pi 1.x in a `<cwd>`
 * section at its end.
 */
import type { RecordedMark, TrafficEndpoint } from '../../compile/call-record.js'
import { failure, parseJsonText } from './body.js'
import { isInstructionRole, openaiUsage, toolName } from './openai-shared.js'
import {
  contentText,
  conversationOf,
  dropUndefined,
  elementHash,
  findWorkingDirectory,
  isObject,
  type JsonObject,
  makePart,
  markOf,
  optional,
  stringAt,
  toolSections,
} from './shared.js'
import { parseSse } from './sse.js'
import type { ParsedPart, ParsedRequest, ParsedResponse, ParseFailure, RequestHeaders } from './types.js'

/** A Chat Completions request body (already JSON) read into parts, marks and identity. */
export function parseChatRequest(
  endpoint: TrafficEndpoint,
  body: unknown,
  _headers: RequestHeaders,
): ParsedRequest | ParseFailure {
  if (!isObject(body)) return failure('a Chat Completions body is a JSON object')
  const model = stringAt(body, 'model')
  if (model === undefined) return failure('a Chat Completions body names its `model` as a string')
  const messages = body.messages
  if (!Array.isArray(messages)) return failure('a Chat Completions body has a `messages` list')
  for (const message of messages)
    if (!isObject(message) || typeof message.role !== 'string')
      return failure('each message is an object with a `role`')
  const parts: ParsedPart[] = []
  const marks: RecordedMark[] = []
  const markAll = (message: JsonObject, at: string) => {
    const blocks = Array.isArray(message.content) ? message.content : []
    for (const c of [message, ...blocks]) {
      const m = isObject(c) ? markOf(c.cache_control, at) : undefined
      if (m !== undefined) marks.push(m)
    }
  }
  let at = 0
  while (at < messages.length && isInstructionRole((messages[at] as JsonObject).role)) {
    const message = messages[at] as JsonObject
    parts.push(makePart(`system:${at + 1}`, 'system', message, contentText(message.content)))
    markAll(message, `system:${at + 1}`)
    at++
  }
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return failure('`tools` is a list')
    const section = toolSections()
    for (const tool of body.tools) {
      const name = isObject(tool) ? toolName(tool) : undefined
      if (name === undefined) return failure('each tool is an object with a function `name` or a `type`')
      parts.push(makePart(section(name), 'tool', tool))
    }
  }
  const messageHashes: string[] = []
  const messageBodies: string[] = []
  let firstUser: string | undefined
  // Later messages are numbered from 1 after the leading instructions.
  messages.slice(at).forEach((message: JsonObject, i) => {
    messageHashes.push(elementHash(message))
    messageBodies.push(JSON.stringify(message))
    markAll(message, `message:${i + 1}`)
    if (firstUser === undefined && message.role === 'user') firstUser = elementHash(message.content)
  })
  const identity = { firstUserMessageHash: firstUser }
  return {
    ok: true,
    endpoint,
    model,
    parts,
    marks,
    ...optional('promptCacheKey', stringAt(body, 'prompt_cache_key')),
    messageHashes,
    messageBodies,
    identity: dropUndefined(identity),
    conversation: conversationOf(identity),
    ...optional(
      'workingDirectory',
      findWorkingDirectory(parts.filter((p) => p.kind === 'system').map((p) => p.text)),
    ),
    streamed: body.stream === true,
  }
}

/** A Chat Completions response: JSON, or the SSE chunks (usage in the last one when `stream_options.include_usage` asked). */
export function parseChatResponse(text: string, streamed: boolean): ParsedResponse | ParseFailure {
  if (!streamed || text.trimStart().startsWith('{')) {
    const json = parseJsonText(text)
    if (!json.ok) return json
    if (!isObject(json.value)) return failure('a Chat Completions response is a JSON object')
    return read(stringAt(json.value, 'id'), json.value.usage)
  }
  let id: string | undefined
  let usage: unknown
  let chunks = 0
  for (const event of parseSse(text)) {
    if (event.data === '[DONE]') continue
    const json = parseJsonText(event.data)
    if (!json.ok || !isObject(json.value)) continue
    chunks++
    id = stringAt(json.value, 'id') ?? id
    if (isObject(json.value.usage)) usage = json.value.usage
  }
  if (chunks === 0) return failure('the stream has no chunk')
  return read(id, usage)
}

function read(id: string | undefined, usage: unknown): ParsedResponse {
  return {
    ok: true,
    ...optional('id', id),
    ...optional('usage', openaiUsage(usage, 'prompt_tokens', 'completion_tokens', 'prompt_tokens_details')),
  }
}
