import type { Stability, ToolSchema } from '../registry/types.js'

/** Counts tokens of a text. Implementations must be pure and deterministic. */
export interface Tokenizer {
  name: string
  count(text: string): number
}

export type TokenizerName = 'o200k' | 'cl100k' | 'estimate'

/** Where a fragment-backed section came from (SPEC §6). */
export interface FragmentManifestEntry {
  id: string
  source: string
  contentHash: string
  dynamic: boolean
}

export interface CompileOptions {
  /** Defaults to `o200k`. */
  tokenizer?: Tokenizer | TokenizerName
  manifest?: FragmentManifestEntry[]
  /** What to do with a section whose effective stability is `turn`; defaults to `warn`. */
  volatile?: 'warn' | 'error'
  budget?: { maxTokens: number }
  /** Also count the whole text, into `exactTokens`. */
  exactTokens?: boolean
  /** A faster sha256 (hex digest of the UTF-8 text); the node layer passes `node:crypto`'s. */
  hash?: (text: string) => string
}

export interface CompiledSection {
  name: string
  order: number
  /** Effective stability: the most volatile of the section's own and its variables'. */
  stability: Stability
  /** String indices into `text`: `text.slice(start, end)` is the section. */
  start: number
  end: number
  tokens: number
  hash: string
}

export interface CompiledTool {
  name: string
  hash: string
  schema: ToolSchema
}

export interface CompileWarning {
  code: string
  message: string
  section?: string
}

export interface BudgetCut {
  section: string
  removedChars: number
  dropped: boolean
}

export interface CompiledPrompt {
  text: string
  /** `sha256:` + hex of the UTF-8 text. */
  hash: string
  bytes: number
  tokens: number
  /** Present when `exactTokens` was asked for. */
  exactTokens?: number
  tokenizer: string
  sections: CompiledSection[]
  tools: CompiledTool[]
  toolsHash: string
  manifest: FragmentManifestEntry[]
  stablePrefix: { static: { end: number; tokens: number }; session: { end: number; tokens: number } }
  warnings: CompileWarning[]
  cuts: BudgetCut[]
}

export interface PromptDiff {
  identical: boolean
  firstDifference: number | null
  section: string | null
  commonPrefixTokens: number
  added: string[]
  removed: string[]
  changed: string[]
}

export interface SessionVersion {
  /** 1-based. */
  version: number
  hash: string
  tokens: number
  /** `construct` for the first version. */
  reason: string
  /** ISO 8601. */
  at: string
  compiled: CompiledPrompt
}

export interface SessionRecord {
  id: string
  current: SessionVersion
  versions: number
}

export interface StoredTemplate {
  workspace: string
  template: string
  dialect: 'mustache' | 'bracket'
  hash: string
  updatedAt: string
}

/** Persistence of templates and session versions (SPEC §8). */
export interface PromptStore {
  getTemplate(workspace: string): Promise<StoredTemplate | undefined>
  /** Compare-and-set: with `expectedHash`, fails with a `StoreConflictError` when the stored hash differs. */
  setTemplate(
    workspace: string,
    template: { template: string; dialect: 'mustache' | 'bracket' },
    expectedHash?: string | null,
  ): Promise<StoredTemplate>
  getSession(id: string): Promise<SessionRecord | undefined>
  /** First writer wins, atomically: a second create returns the existing record unchanged. */
  createSession(id: string, version: SessionVersion): Promise<SessionRecord>
  /** Compare-and-set on the latest version's hash; a `StoreConflictError` when it moved. */
  appendVersion(id: string, version: SessionVersion, expectedHash: string): Promise<SessionRecord>
  history(id: string): Promise<SessionVersion[]>
  /** Appends a classified usage report to the session; `not-found` when the session does not exist. */
  recordUsage(id: string, outcome: UsageOutcome): Promise<void>
  /** The session's usage outcomes in the order they were recorded; empty for an unknown session. */
  usage(id: string): Promise<UsageOutcome[]>
  close?(): Promise<void>
}

/** A provider whose usage reports `recordUsage` reads. */
export type UsageProvider = 'anthropic' | 'openai' | 'gemini'

/**
 * How much of a call's cacheable prefix the provider served from cache:
 * `hot` at least 90 %, `partial` some, `cold` none with a prefix at or over
 * the provider's minimum, `small` a prefix below that minimum.
 */
export type CacheOutcome = 'hot' | 'partial' | 'cold' | 'small'

/** One provider call's usage report, normalised and classified (SPEC §8). */
export interface UsageOutcome {
  /** The session version the call sent. */
  version: number
  /** ISO 8601: when the outcome was recorded. */
  at: string
  provider: UsageProvider
  model: string
  /** Every input token of the call, cached ones included (Anthropic: input + cache read + cache creation). */
  inputTokens: number
  /** Input tokens read from the provider's cache. */
  cachedTokens: number
  /** Input tokens written to the cache (Anthropic `cache_creation_input_tokens`; 0 elsewhere). */
  cacheWriteTokens: number
  outcome: CacheOutcome
  /** What made the call colder than the one before it, when it was. */
  why?: string
}
