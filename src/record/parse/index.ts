/*
 * The pure parsing half of `sysprompt record` (SPEC §11): a captured
 * request and response turned into what a `CallRecord` holds. One file per
 * provider API; this one picks by endpoint. Nothing here throws on input:
 * an unknown shape is a `ParseFailure` with its reason.
 */
import type { TrafficEndpoint } from '../../compile/call-record.js'
import { parseAnthropicRequest, parseAnthropicResponse } from './anthropic-messages.js'
import { bodyText, parseJsonText } from './body.js'
import { parseGeminiRequest, parseGeminiResponse } from './gemini.js'
import { parseChatRequest, parseChatResponse } from './openai-chat.js'
import { parseResponsesRequest, parseResponsesResponse } from './openai-responses.js'
import type { ParsedRequest, ParsedResponse, ParseFailure, RequestHeaders } from './types.js'

export { MAX_BODY_BYTES } from './body.js'
export { prefixHash, toRecordedPart } from './shared.js'
export type { SseEvent } from './sse.js'
export { parseSse } from './sse.js'
export type {
  ConversationIdentity,
  ParsedPart,
  ParsedRequest,
  ParsedResponse,
  ParseFailure,
  RequestHeaders,
} from './types.js'

/** What a request is read with beside its body and headers. */
export interface ParseRequestOptions {
  /** The request's path: Gemini names the model there. */
  path?: string
}

/**
 * A model request read into its cacheable prefix (parts in the provider's
 * cache order), marks, `prompt_cache_key`, later messages' hashes, the
 * conversation's identity, the working directory the harness states, and
 * whether it streams. Bodies over 64 MiB, not UTF-8, not JSON, nested past
 * the limit or of an unknown shape give a `ParseFailure`.
 */
export function parseRequest(
  endpoint: TrafficEndpoint,
  body: Uint8Array | string,
  headers: RequestHeaders = {},
  options: ParseRequestOptions = {},
): ParsedRequest | ParseFailure {
  const text = bodyText(body)
  if (!text.ok) return text
  const json = parseJsonText(text.text)
  if (!json.ok) return json
  switch (endpoint) {
    case 'anthropic.messages':
    case 'anthropic.count_tokens':
      return parseAnthropicRequest(endpoint, json.value, headers)
    case 'openai.responses':
      return parseResponsesRequest(endpoint, json.value, headers)
    case 'openai.chat.completions':
      return parseChatRequest(endpoint, json.value, headers)
    case 'gemini.generateContent':
    case 'gemini.streamGenerateContent':
      return parseGeminiRequest(endpoint, json.value, headers, options.path)
    default:
      return { ok: false, reason: `no parser for the endpoint ${String(endpoint)}` }
  }
}

/**
 * A model response read into its id, usage (normalised: `inputTokens`
 * counts cached tokens too) and the provider's cache diagnostic. `streamed`
 * says the body is an SSE stream (a JSON body, such as an error, is still
 * read as JSON). The body is the decoded one (the relay undoes gzip, br and
 * zstd first).
 */
export function parseResponse(
  endpoint: TrafficEndpoint,
  body: Uint8Array | string,
  options: { streamed: boolean },
): ParsedResponse | ParseFailure {
  const text = bodyText(body)
  if (!text.ok) return text
  switch (endpoint) {
    case 'anthropic.messages':
    case 'anthropic.count_tokens':
      return parseAnthropicResponse(text.text, options.streamed)
    case 'openai.responses':
      return parseResponsesResponse(text.text, options.streamed)
    case 'openai.chat.completions':
      return parseChatResponse(text.text, options.streamed)
    case 'gemini.generateContent':
    case 'gemini.streamGenerateContent':
      return parseGeminiResponse(text.text, options.streamed)
    default:
      return { ok: false, reason: `no parser for the endpoint ${String(endpoint)}` }
  }
}
