/*
 * Anthropic Messages (`/v1/messages`, also `count_tokens`): the cache order
 * is tools → system → messages, and `cache_control` on a block marks where a
 * cached prefix ends (ANCHORS "Provider prompt caching").
 *
 * Claude Code sends its instruction files (CLAUDE.md and its imports) and
 * other context as `<system-reminder>` text blocks at the head of the first
 * user message, before the user's own prompt: those leading blocks are the
 * `message:1` part. Its `<env>` block in the system prompt states the
 * working directory; the `x-claude-code-session-id` and
 * `x-claude-code-agent-id` headers name the conversation.
 */
import type { RecordedMark, TrafficEndpoint } from '../../compile/call-record.js'
import { hashText } from '../../shared/hash.js'
import { failure, parseJsonText } from './body.js'
import {
  contentText,
  conversationOf,
  dropUndefined,
  elementHash,
  findWorkingDirectory,
  header,
  isObject,
  type JsonObject,
  makePart,
  markOf,
  numberAt,
  optional,
  stringAt,
  toolSections,
} from './shared.js'
import { parseSse } from './sse.js'
import type { ParsedPart, ParsedRequest, ParsedResponse, ParseFailure, RequestHeaders } from './types.js'

const REMINDER = '<system-reminder>'

/** A Messages request body (already JSON) read into parts, marks and identity. */
export function parseAnthropicRequest(
  endpoint: TrafficEndpoint,
  body: unknown,
  headers: RequestHeaders,
): ParsedRequest | ParseFailure {
  if (!isObject(body)) return failure('an Anthropic Messages body is a JSON object')
  const model = stringAt(body, 'model')
  if (model === undefined) return failure('an Anthropic Messages body names its `model` as a string')
  const messages = body.messages
  if (!Array.isArray(messages)) return failure('an Anthropic Messages body has a `messages` list')
  const parts: ParsedPart[] = []
  const marks: RecordedMark[] = []
  const mark = (cacheControl: unknown, at: string) => {
    const m = markOf(cacheControl, at)
    if (m !== undefined) marks.push(m)
  }

  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return failure('`tools` is a list')
    const section = toolSections()
    for (const tool of body.tools) {
      if (!isObject(tool) || typeof tool.name !== 'string')
        return failure('each tool is an object with a `name`')
      const name = section(tool.name)
      parts.push(makePart(name, 'tool', tool))
      mark(tool.cache_control, name)
    }
  }

  const system = body.system
  if (typeof system === 'string') parts.push(makePart('system:1', 'system', system, system))
  else if (Array.isArray(system)) {
    system.forEach((block, i) => {
      const text = isObject(block) && typeof block.text === 'string' ? block.text : undefined
      parts.push(makePart(`system:${i + 1}`, 'system', block, text))
      if (isObject(block)) mark(block.cache_control, `system:${i + 1}`)
    })
  } else if (system !== undefined && system !== null)
    return failure('`system` is a string or a list of blocks')

  const messageHashes: string[] = []
  const messageBodies: string[] = []
  let firstUser: string | undefined
  let injectedText = ''
  for (const [i, message] of messages.entries()) {
    if (!isObject(message) || typeof message.role !== 'string')
      return failure('each message is an object with a `role`')
    const content = message.content
    if (typeof content !== 'string' && !Array.isArray(content))
      return failure('a message `content` is a string or a list of blocks')
    // Messages are numbered from 1 in the request's order: a mark on the first user message is `message:1`.
    if (Array.isArray(content))
      for (const block of content) if (isObject(block)) mark(block.cache_control, `message:${i + 1}`)
    if (i === 0 && message.role === 'user') {
      const { injected, rest } = splitInjected(content)
      if (injected !== undefined) {
        injectedText = contentText(injected)
        parts.push(makePart('message:1', 'injected', injected, injectedText))
      }
      if (rest !== undefined) {
        messageHashes.push(elementHash(rest))
        messageBodies.push(JSON.stringify(rest))
        firstUser = elementHash(rest)
      }
      continue
    }
    messageHashes.push(elementHash(message))
    messageBodies.push(JSON.stringify(message))
    if (firstUser === undefined && message.role === 'user') firstUser = elementHash(content)
  }
  // Automatic caching: one top-level `cache_control` places the mark at the last block.
  if (isObject(body.cache_control) && messages.length > 0)
    mark(body.cache_control, `message:${messages.length}`)

  const metadata = isObject(body.metadata) ? body.metadata : undefined
  const userId = metadata === undefined ? undefined : stringAt(metadata, 'user_id')
  const identity = {
    sessionId: header(headers, 'x-claude-code-session-id'),
    agentId: header(headers, 'x-claude-code-agent-id'),
    userIdHash: userId === undefined ? undefined : hashText(userId),
    firstUserMessageHash: firstUser,
  }
  const systemTexts = parts.filter((p) => p.kind === 'system').map((p) => p.text)
  return {
    ok: true,
    endpoint,
    model,
    parts,
    marks,
    messageHashes,
    messageBodies,
    identity: dropUndefined(identity),
    conversation: conversationOf(identity),
    ...optional('workingDirectory', findWorkingDirectory([...systemTexts, injectedText])),
    streamed: body.stream === true,
  }
}

/**
 * The leading `<system-reminder>` blocks of the first user message (Claude
 * Code's injected context) and what follows them (the user's prompt). A
 * string content is split after its leading run of reminders.
 */
function splitInjected(content: string | unknown[]): { injected?: unknown; rest?: unknown } {
  if (typeof content === 'string') {
    let end = 0
    const opening = /\s*<system-reminder>/y
    for (;;) {
      opening.lastIndex = end
      if (!opening.test(content)) break
      const close = content.indexOf('</system-reminder>', opening.lastIndex)
      if (close === -1) break
      end = close + '</system-reminder>'.length
    }
    if (end === 0) return { rest: content }
    const rest = content.slice(end)
    return { injected: content.slice(0, end), ...(rest.trim() === '' ? {} : { rest }) }
  }
  let n = 0
  while (n < content.length && isReminder(content[n])) n++
  return {
    ...(n > 0 ? { injected: content.slice(0, n) } : {}),
    ...(n < content.length ? { rest: content.slice(n) } : {}),
  }
}

function isReminder(block: unknown): boolean {
  return (
    isObject(block) &&
    block.type === 'text' &&
    typeof block.text === 'string' &&
    block.text.trimStart().startsWith(REMINDER)
  )
}

/** A Messages response: JSON, or the SSE stream (`message_start` then `message_delta`, whose usage is cumulative). */
export function parseAnthropicResponse(text: string, streamed: boolean): ParsedResponse | ParseFailure {
  if (!streamed || text.trimStart().startsWith('{')) {
    const json = parseJsonText(text)
    if (!json.ok) return json
    if (!isObject(json.value)) return failure('an Anthropic response is a JSON object')
    return readMessage(json.value)
  }
  let id: string | undefined
  let usage: JsonObject = {}
  let diagnostics: unknown
  for (const event of parseSse(text)) {
    const json = parseJsonText(event.data)
    if (!json.ok || !isObject(json.value)) continue
    const data = json.value
    const message = isObject(data.message) ? data.message : undefined
    if (data.type === 'message_start' && message !== undefined) {
      id = stringAt(message, 'id') ?? id
      if (isObject(message.usage)) usage = { ...usage, ...message.usage }
      diagnostics = cacheMissReason(message) ?? diagnostics
    } else if (data.type === 'message_delta') {
      if (isObject(data.usage)) usage = { ...usage, ...data.usage }
      diagnostics = cacheMissReason(data) ?? diagnostics
    }
  }
  if (id === undefined && Object.keys(usage).length === 0)
    return failure('the stream has no `message_start` event')
  return { ok: true, ...optional('id', id), usage: normalise(usage), ...optional('diagnostics', diagnostics) }
}

function readMessage(message: JsonObject): ParsedResponse {
  const id = stringAt(message, 'id')
  const usage = isObject(message.usage)
    ? normalise(message.usage)
    : typeof message.input_tokens === 'number' // a `count_tokens` answer
      ? normalise({ input_tokens: message.input_tokens })
      : undefined
  return {
    ok: true,
    ...optional('id', id),
    ...optional('usage', usage),
    ...optional('diagnostics', cacheMissReason(message)),
  }
}

function cacheMissReason(value: JsonObject): unknown {
  return isObject(value.diagnostics) ? value.diagnostics.cache_miss_reason : undefined
}

/** Anthropic counts input after the last mark apart from cache reads and writes: every input token is their sum. */
function normalise(usage: JsonObject) {
  const read = numberAt(usage, 'cache_read_input_tokens')
  const write = numberAt(usage, 'cache_creation_input_tokens')
  return {
    inputTokens: numberAt(usage, 'input_tokens') + read + write,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    outputTokens: numberAt(usage, 'output_tokens'),
  }
}
