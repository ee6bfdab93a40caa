import type { Stability, ToolSchema } from '../registry/types.js'
import type { CallRecord, UsageProvider } from './call-record.js'

// Defined beside the recording types (which `PromptStore` uses), so the two files import in one direction only.
export type { UsageProvider }

/** Counts tokens of a text. Implementations must be pure and deterministic. */
export interface Tokenizer {
  name: string
  count(text: string): number
  /**
   * What the counts depend on besides `name` (package version, splitting):
   * a persistent count cache serves only tokenizers that have one, keyed by
   * both, so a new version never reads an old count.
   */
  version?: string
}

/**
 * A persistent store of token counts (SPEC §5), e.g. `diskCountCache` of
 * `sysprompt/node`. `tokenizer` is `name@version`; an implementation keys
 * by it and a hash of the text, and may forget anything at any time.
 */
export interface TokenCountCache {
  get(tokenizer: string, text: string): number | undefined
  set(tokenizer: string, text: string, count: number): void
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
  /** Where counts persist between processes; a count found there loads no encoding. */
  countCache?: TokenCountCache
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
  /**
   * Where each non-empty inserted value landed, as string indices into the
   * prompt `text` (from the renderer, never a search); absent when the section
   * inserts nothing. A budget cut keeps only the insertions it left whole.
   */
  insertions?: SectionInsertion[]
  /**
   * The files this section's text includes, with where each landed in `text`:
   * `file:<path>` insertions as compiled; callers that know more (the
   * node layer, for the instruction files inside `project:instructions`)
   * add theirs. Absent when none.
   */
  files?: SectionFile[]
}

/** One inserted value's place in a compiled prompt. */
export interface SectionInsertion {
  key: string
  start: number
  end: number
}

/** One included file's place in a compiled prompt (`text.slice(start, end)` is what of it the model sees). */
export interface SectionFile {
  /** As the prompt names it: relative to the project root, `/` separated (`~/…` for a global file). */
  path: string
  start: number
  end: number
  /** Where its own header line (`<!-- path -->`) starts, when the text frames it with one. */
  headerStart?: number
  /** The key whose value holds it (`file:docs/A.md`, `project:instructions`). */
  key: string
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
  /**
   * A recording's version only: the `prefixHash` of the calls that sent it
   * (SPEC §11), by which `findVersionByPrefix` finds it again.
   */
  prefixHash?: string
}

/**
 * What a session holds: a compiled prompt (the default, absent from the
 * record) or a `recording`, a thread of requests `sysprompt record` saw,
 * whose versions are the prefixes the harness sent. Session write routes
 * refuse a recording.
 */
export type SessionKind = 'recording'

export interface SessionRecord {
  id: string
  current: SessionVersion
  versions: number
  /** Set for a recording; absent for a prompt session. */
  kind?: SessionKind
}

/** Which calls `calls` reads: call numbers from `from` to `to`, both included (default: all). */
export interface CallRange {
  from?: number
  to?: number
}

/** What `pruneCalls` removed. */
export interface PruneResult {
  calls: number
  /** Recordings left without a call, removed whole. */
  sessions: number
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
  /**
   * First writer wins, atomically: a second create returns the existing
   * record unchanged (its kind included). `kind: 'recording'` marks a
   * thread of `sysprompt record`, which alone takes `recordCall`.
   */
  createSession(id: string, version: SessionVersion, options?: { kind?: SessionKind }): Promise<SessionRecord>
  /** Compare-and-set on the latest version's hash; a `StoreConflictError` when it moved. */
  appendVersion(id: string, version: SessionVersion, expectedHash: string): Promise<SessionRecord>
  history(id: string): Promise<SessionVersion[]>
  /** Appends a classified usage report to the session; `not-found` when the session does not exist. */
  recordUsage(id: string, outcome: UsageOutcome): Promise<void>
  /** The session's usage outcomes in the order they were recorded; empty for an unknown session. */
  usage(id: string): Promise<UsageOutcome[]>
  /**
   * Appends a recorded request to a recording and returns it with its
   * number, the next of the session, assigned atomically (concurrent
   * writers never share one); its cost does not grow with the calls before
   * it. `not-found` for an unknown session, `invalid` for one that is not a
   * recording.
   */
  recordCall(call: Omit<CallRecord, 'call'>): Promise<CallRecord>
  /** A session's calls in call order (those numbered within `range`); empty for an unknown session. */
  calls(id: string, range?: CallRange): Promise<CallRecord[]>
  /** The number of the session's first version whose `prefixHash` is this one, so a prefix seen before is reused. */
  findVersionByPrefix(id: string, prefixHash: string): Promise<number | undefined>
  /**
   * Removes a session with its versions, usage and calls; false when there
   * was none. Section texts stay: they are stored once for every session
   * that shares them, and nothing indexes who still does.
   */
  deleteSession(id: string): Promise<boolean>
  /** Removes the calls started before `olderThan`, and each recording that is left without one. */
  pruneCalls(olderThan: Date): Promise<PruneResult>
  close?(): Promise<void>
}

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
