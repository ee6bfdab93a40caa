export { canonicalJson, type HashFunction, hashText, sha256Hex, utf8Length } from '../shared/hash.js'
export { CACHE_MINIMUMS, type CacheMinimum, type CacheProvider, cacheMinimum } from './cache-minimums.js'
export { compile } from './compile.js'
export { diffCompiled } from './diff.js'
export { type EnvironmentDelta, environmentDelta } from './environment-delta.js'
export { CompileError, type CompileErrorCode } from './errors.js'
export { type CheckLockOptions, checkLock, createLock, formatLock, lockKeys, withLockEntry } from './lock.js'
export type { LockFile } from './lock-files.js'
export { LockError, type LockErrorCode, parseLock, parseLockFile } from './lock-parse.js'
export {
  type LockCheck,
  type LockDifference,
  type LockEntry,
  type LockMachine,
  type LockSection,
  type LockView,
  lockUpdate,
  type PromptLock,
  SYSPROMPT_ENTRY,
} from './lock-types.js'
export { type ClosablePromptStore, type MemoryStoreOptions, memoryStore } from './memory-store.js'
export {
  type CachePlan,
  type CachePlanOptions,
  type CacheVerdict,
  type CacheVerdictOptions,
  cacheVerdict,
  planCache,
} from './plan-cache.js'
export {
  type AnthropicShape,
  type GeminiShape,
  type OpenAIShape,
  toAnthropic,
  toGemini,
  toOpenAI,
} from './provider-shapes.js'
export {
  CONSTRUCT_REASON,
  createSessionPrompts,
  type RecompileResult,
  SESSION_REASONS,
  type SessionPrompts,
  type SessionPromptsOptions,
  type SessionReason,
} from './sessions.js'
export { type BpeEncoding, SPLIT_LENGTH } from './split-count.js'
export { StoreConflictError, StoreError, type StoreErrorCode } from './store-errors.js'
export {
  cl100k,
  ENCODINGS,
  type EncodingLoader,
  type EncodingName,
  estimate,
  isTokenizerLoaded,
  loadTokenizer,
  o200k,
  registerTokenizerLoader,
  resolveTokenizer,
  TOKENIZER_VERSION,
  withCountCache,
} from './tokenizers.js'
export type * from './types.js'
export {
  CACHE_TTL_MS,
  classifyUsage,
  explainColder,
  HOT_SHARE,
  isColder,
  type NormalisedUsage,
  normaliseUsage,
  outcomeOf,
  type PreviousCall,
  type RecordUsageOptions,
} from './usage.js'
export {
  type SectionPrefixUsage,
  summariseUsage,
  type UsageReport,
  type UsageTotals,
} from './usage-report.js'
