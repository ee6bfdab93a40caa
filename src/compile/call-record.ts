/*
 * What `sysprompt record` keeps per model request (SPEC §11, issue 33): the
 * types the recorder fills, the store persists (every driver, the shared
 * conformance suite) and `why` reads. Pure data: no parsing here.
 */

/** A provider whose usage reports `recordUsage` reads. */
export type UsageProvider = 'anthropic' | 'openai' | 'gemini'

/** The provider API a recorded request used, by its path. */
export type TrafficEndpoint =
  | 'anthropic.messages'
  | 'anthropic.count_tokens'
  | 'openai.responses'
  | 'openai.chat.completions'
  | 'gemini.generateContent'
  | 'gemini.streamGenerateContent'

/**
 * One part of a request's cacheable prefix, in the provider's cache order:
 * a tool definition, a system block, or the text the harness injects into
 * the first user message (Claude Code and Codex put instruction files
 * there). Its section name in the ledger: `tool:<name>`, `system:<n>` (from
 * 1), `message:1`.
 */
export interface RecordedPart {
  section: string
  kind: 'tool' | 'system' | 'injected'
  /** `sha256:` + hex of the part's bytes as sent (its JSON element, serialised as the client sent it). */
  hash: string
  /** `hmac-sha256:` + hex, keyed with the per-user secret, of its text before masking: a change masking hides is still seen. */
  keyedHash: string
}

/** A cache mark as the request placed it. */
export interface RecordedMark {
  /** The section the mark closes (`system:2`), or `message:<n>` for a mark on a later message (from 1). */
  at: string
  /** The mark's time to live as asked (`5m` when the provider's default applies). */
  ttl: '5m' | '1h'
}

/** A response's usage in the provider's own terms, normalised (cached tokens are not counted twice). */
export interface RecordedUsage {
  /** Every input token, cached ones included (Anthropic: input + cache read + cache write). */
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
}

/** One recorded model request (a row of the store's `calls`). */
export interface CallRecord {
  /** The ledger session of its thread (`rec-<harness>-<yyyymmddThhmmssZ>-<6 hex>`). */
  session: string
  /** The ledger version of its prefix (distinct prefixes are versions, reused by prefix hash). */
  version: number
  /** Numbered from 1 within the session, in the order the requests started. */
  call: number
  /** The harness's own session id (plus agent id), else the hash of the first user message after what the harness injects. */
  conversation: string
  harness: string
  harnessVersion?: string
  provider: UsageProvider
  endpoint: TrafficEndpoint
  model: string
  status: number
  streamed: boolean
  /** ISO 8601 times: request start, first response byte, end. */
  startedAt: string
  firstByteAt?: string
  endedAt?: string
  /** `sha256:` of the cacheable prefix (the parts' hashes in order): the version's key. */
  prefixHash: string
  parts: RecordedPart[]
  marks: RecordedMark[]
  promptCacheKey?: string
  /** `sha256:` of each message after the injected part, in order (texts are stored only with `--keep-bodies`). */
  messageHashes: string[]
  usage?: RecordedUsage
  /** The provider's own cache diagnostic, as sent (Anthropic `diagnostics.cache_miss_reason`, OpenAI `prompt_cache_diagnostics`). */
  diagnostics?: unknown
  /** A call recorded from a WebSocket chain joined midway: its full input is unknown (no version, no `why`). */
  partial?: boolean
}
