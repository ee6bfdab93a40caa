/*
 * Gemini generateContent and streamGenerateContent: `systemInstruction`,
 * then `tools`, then `contents`. Caching is implicit (no marks); the model
 * is named in the path (`/v1beta/models/<model>:generateContent`), not the
 * body.
 *
 * Gemini CLI puts its global GEMINI.md files in the system instruction and
 * opens the first user content with what it injects: its session context
 * (date, OS, `I'm currently working in the directory: …`, the folder
 * structure; `<session_context>` in newer releases) and the project's
 * GEMINI.md files in `<loaded_context><project_context>`. Those leading
 * parts are the `message:1` part; older releases followed them with a model
 * reply ("Got it. Thanks for the context!") before the user's prompt.
 */
import type { TrafficEndpoint } from '../../compile/call-record.js'
import { failure, parseJsonText } from './body.js'
import {
  conversationOf,
  dropUndefined,
  elementHash,
  findWorkingDirectory,
  isObject,
  type JsonObject,
  makePart,
  numberAt,
  optional,
  stringAt,
  toolSections,
} from './shared.js'
import { parseSse } from './sse.js'
import type { ParsedPart, ParsedRequest, ParsedResponse, ParseFailure, RequestHeaders } from './types.js'

/** How Gemini CLI's injected texts begin. */
const GEMINI_INJECTED = [
  '<session_context>',
  '<loaded_context>',
  'This is the Gemini CLI. We are setting up the context',
]

/** The model a Gemini path names (`models/<model>:<method>`), if it names one. */
export function geminiModel(path: string | undefined): string | undefined {
  const found = path === undefined ? undefined : /\/models\/([^/:?]+):/.exec(path)?.[1]
  return found === undefined ? undefined : decodeURIComponentSafe(found)
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** A Gemini request body (already JSON) read into parts and identity; `path` names the model. */
export function parseGeminiRequest(
  endpoint: TrafficEndpoint,
  body: unknown,
  _headers: RequestHeaders,
  path?: string,
): ParsedRequest | ParseFailure {
  if (!isObject(body)) return failure('a Gemini body is a JSON object')
  const contents = body.contents
  if (!Array.isArray(contents)) return failure('a Gemini body has a `contents` list')
  for (const content of contents)
    if (!isObject(content) || !Array.isArray(content.parts))
      return failure('each content is an object with `parts`')
  const parts: ParsedPart[] = []
  const system = body.systemInstruction ?? body.system_instruction
  if (system !== undefined && system !== null) {
    if (!isObject(system) || !Array.isArray(system.parts))
      return failure('`systemInstruction` is a content with `parts`')
    system.parts.forEach((part, i) => {
      const text = isObject(part) && typeof part.text === 'string' ? part.text : undefined
      parts.push(makePart(`system:${i + 1}`, 'system', part, text))
    })
  }
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return failure('`tools` is a list')
    const section = toolSections()
    for (const tool of body.tools) {
      if (!isObject(tool)) return failure('each tool is an object')
      const declarations = tool.functionDeclarations ?? tool.function_declarations
      // Each function declaration is a tool of its own; a built-in tool (`googleSearch`) is named by its key.
      if (Array.isArray(declarations)) {
        for (const d of declarations) {
          if (!isObject(d) || typeof d.name !== 'string')
            return failure('each function declaration has a `name`')
          parts.push(makePart(section(d.name), 'tool', d))
        }
      } else parts.push(makePart(section(Object.keys(tool).join('+') || 'tool'), 'tool', tool))
    }
  }
  const { injected, rest, next } = takeInjected(contents as JsonObject[])
  const injectedText = injected.map((p) => (p as JsonObject).text as string).join('\n')
  if (injected.length > 0) parts.push(makePart('message:1', 'injected', injected, injectedText))
  const messageHashes: string[] = []
  const messageBodies: string[] = []
  let firstUser: string | undefined
  if (rest !== undefined) {
    messageHashes.push(elementHash(rest))
    messageBodies.push(JSON.stringify(rest))
    firstUser = elementHash(rest)
  }
  for (const content of contents.slice(next) as JsonObject[]) {
    messageHashes.push(elementHash(content))
    messageBodies.push(JSON.stringify(content))
    if (firstUser === undefined && content.role === 'user') firstUser = elementHash(content.parts)
  }
  const identity = { firstUserMessageHash: firstUser }
  const systemTexts = parts.filter((p) => p.kind === 'system').map((p) => p.text)
  return {
    ok: true,
    endpoint,
    model: geminiModel(path) ?? stringAt(body, 'model') ?? '',
    parts,
    marks: [],
    messageHashes,
    messageBodies,
    identity: dropUndefined(identity),
    conversation: conversationOf(identity),
    ...optional('workingDirectory', findWorkingDirectory([injectedText, ...systemTexts])),
    streamed: endpoint === 'gemini.streamGenerateContent',
  }
}

/**
 * The leading injected parts of the first user content; when they fill it
 * and the model's acknowledgement follows, that reply is skipped too, so
 * `rest` (the parts after them) or `next` reaches the user's prompt.
 */
function takeInjected(contents: JsonObject[]): { injected: unknown[]; rest?: unknown; next: number } {
  const first = contents[0]
  if (first === undefined || first.role !== 'user') return { injected: [], next: 0 }
  const partsOf = first.parts as unknown[]
  let n = 0
  while (n < partsOf.length && isGeminiInjected(partsOf[n])) n++
  if (n === 0) return { injected: [], next: 0 }
  if (n < partsOf.length) return { injected: partsOf.slice(0, n), rest: partsOf.slice(n), next: 1 }
  const ack = contents[1]?.role === 'model' ? 2 : 1
  return { injected: partsOf, next: ack }
}

function isGeminiInjected(part: unknown): boolean {
  if (!isObject(part) || typeof part.text !== 'string') return false
  const text = part.text.trimStart()
  return GEMINI_INJECTED.some((start) => text.startsWith(start))
}

/** A Gemini response: one JSON object, a JSON list of chunks, or SSE chunks (`alt=sse`); the last usage counts. */
export function parseGeminiResponse(text: string, streamed: boolean): ParsedResponse | ParseFailure {
  const trimmed = text.trimStart()
  let chunks: unknown[]
  if (!streamed || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const json = parseJsonText(text)
    if (!json.ok) return json
    chunks = Array.isArray(json.value) ? json.value : [json.value]
  } else {
    chunks = []
    for (const event of parseSse(text)) {
      const json = parseJsonText(event.data)
      if (json.ok) chunks.push(json.value)
    }
  }
  let id: string | undefined
  let usage: JsonObject | undefined
  let read = 0
  for (const chunk of chunks) {
    if (!isObject(chunk)) continue
    read++
    id = stringAt(chunk, 'responseId') ?? id
    if (isObject(chunk.usageMetadata)) usage = chunk.usageMetadata
  }
  if (read === 0) return failure('a Gemini response has no JSON object')
  return {
    ok: true,
    ...optional('id', id),
    ...optional(
      'usage',
      usage === undefined
        ? undefined
        : {
            inputTokens: numberAt(usage, 'promptTokenCount'),
            cacheReadTokens: numberAt(usage, 'cachedContentTokenCount'),
            cacheWriteTokens: 0,
            // Thinking tokens are billed as output.
            outputTokens: numberAt(usage, 'candidatesTokenCount') + numberAt(usage, 'thoughtsTokenCount'),
          },
    ),
  }
}
