/*
 * What parsing a recorded request and response gives (SPEC §11, issue 33):
 * the pure half of `sysprompt record`. The relay hands over the bytes; the
 * recorder turns these into a `CallRecord`.
 */
import type { RecordedMark, RecordedPart, RecordedUsage, TrafficEndpoint } from '../../compile/call-record.js'

/** Request headers as Node gives them (names in any case; a repeated header as a list). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>

/** Why a body could not be read: bodies are untrusted, so every shape we do not know ends here, never in a throw. */
export interface ParseFailure {
  ok: false
  reason: string
}

/** One part of the cacheable prefix, in the provider's cache order, before hashing with the per-user key. */
export interface ParsedPart {
  /** `tool:<name>`, `system:<n>` (from 1) or `message:1` (what the harness injects into the first user message). */
  section: string
  kind: RecordedPart['kind']
  /** The text a reader compares: a block's text, a tool's definition as JSON. */
  text: string
  /**
   * The part's JSON element as `JSON.stringify` writes it again. The client's
   * own bytes of one element cannot be had from `JSON.parse`; the same value
   * serialises the same way, so a change to the element changes this.
   */
  bytes: string
  /** `sha256:` of `bytes`. */
  hash: string
}

/** What names the conversation a request belongs to, as the harness sends it. */
export interface ConversationIdentity {
  /** Claude Code `x-claude-code-session-id`; Codex `session-id` (`session_id` before 0.171). */
  sessionId?: string
  /** Claude Code `x-claude-code-agent-id` (a sub-agent). */
  agentId?: string
  /** `sha256:` of Anthropic `metadata.user_id` (never the value itself). */
  userIdHash?: string
  /** `sha256:` of the first user message after what the harness injects. */
  firstUserMessageHash?: string
}

/** A model request, read. */
export interface ParsedRequest {
  ok: true
  endpoint: TrafficEndpoint
  /** The model asked for ('' when the request does not name one, e.g. a Gemini body read without its path). */
  model: string
  /** The cacheable prefix in the provider's cache order. */
  parts: ParsedPart[]
  marks: RecordedMark[]
  promptCacheKey?: string
  /** `sha256:` of each message after the injected part, in order (the rest of the first user message first). */
  messageHashes: string[]
  /** Each of those messages as JSON, in the same order: stored (masked) only with `--keep-bodies`. */
  messageBodies: string[]
  identity: ConversationIdentity
  /** The conversation key: session id (`/` agent id), else the user id hash, else the first user message's hash. */
  conversation: string
  /** The working directory the harness states in its prompt, for the drift check. */
  workingDirectory?: string
  streamed: boolean
}

/** A model response, read. */
export interface ParsedResponse {
  ok: true
  id?: string
  usage?: RecordedUsage
  /** The provider's own cache diagnostic, as sent (Anthropic `diagnostics.cache_miss_reason`, OpenAI `prompt_cache_diagnostics`). */
  diagnostics?: unknown
}
