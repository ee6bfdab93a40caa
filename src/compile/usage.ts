import { diffCompiled } from './diff.js'
import { planCache } from './plan-cache.js'
import type { CacheOutcome, CompiledPrompt, UsageOutcome, UsageProvider } from './types.js'

/** A provider usage report reduced to the three numbers every provider can give. */
export interface NormalisedUsage {
  /** Every input token of the call, cached ones included. */
  inputTokens: number
  cachedTokens: number
  cacheWriteTokens: number
}

/** What `sessions.recordUsage` needs besides the report (SPEC §8). */
export interface RecordUsageOptions {
  provider: UsageProvider
  /** The model id as sent. */
  model: string
  /** The version the call sent, by hash; defaults to the session's current one. */
  hash?: string
  /** `extended` when the request asked for the long cache lifetime (Anthropic 1 hour, OpenAI 24 hours). */
  ttl?: 'default' | 'extended'
}

/** Prompt-cache lifetimes per provider, in ms; Gemini's implicit cache promises none. */
export const CACHE_TTL_MS: Record<UsageProvider, { default: number; extended: number } | undefined> = {
  anthropic: { default: 5 * 60_000, extended: 60 * 60_000 },
  openai: { default: 10 * 60_000, extended: 24 * 60 * 60_000 },
  gemini: undefined,
}

/** At least this share of the cacheable prefix read from cache makes a call `hot`. */
export const HOT_SHARE = 0.9

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

function count(report: Record<string, unknown>, path: string, where: string): number {
  let value: unknown = report
  for (const key of path.split('.')) value = isRecord(value) ? value[key] : undefined
  if (value === undefined || value === null) return 0
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(
      `recordUsage: ${where}.${path} must be a non-negative number, got ${JSON.stringify(value) ?? String(value)}; pass the usage object the provider SDK returned`,
    )
  }
  // Past 2^53 a count is no count a provider sends, and sums of such overflow to Infinity.
  if (value > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(
      `recordUsage: ${where}.${path} must be a non-negative number no larger than 2^53 - 1, got ${value}; pass the usage object the provider SDK returned`,
    )
  }
  return Math.floor(value)
}

/**
 * Reads a provider's usage report as its SDK returns it: the `usage` (or
 * Gemini `usageMetadata`) object, or the whole response holding it.
 * Anthropic reports cached tokens beside `input_tokens`
 * (`cache_read_input_tokens`, `cache_creation_input_tokens`), so its total is
 * their sum; OpenAI counts `cached_tokens` inside `prompt_tokens` (Chat
 * Completions) or `input_tokens` (Responses); Gemini counts
 * `cachedContentTokenCount` inside `promptTokenCount`. Missing counts are 0;
 * a count that is not a non-negative number throws a `TypeError` naming it.
 */
export function normaliseUsage(provider: UsageProvider, usage: unknown): NormalisedUsage {
  if (!isRecord(usage)) {
    throw new TypeError(
      `recordUsage: the ${provider} usage report must be an object, got ${usage === null ? 'null' : typeof usage}; pass response.usage as the SDK returned it`,
    )
  }
  if (provider === 'gemini') {
    const report = isRecord(usage.usageMetadata) ? usage.usageMetadata : usage
    const inputTokens = count(report, 'promptTokenCount', 'usageMetadata')
    const cachedTokens = Math.min(count(report, 'cachedContentTokenCount', 'usageMetadata'), inputTokens)
    return { inputTokens, cachedTokens, cacheWriteTokens: 0 }
  }
  const report = isRecord(usage.usage) ? usage.usage : usage
  if (provider === 'anthropic') {
    const cachedTokens = count(report, 'cache_read_input_tokens', 'usage')
    const cacheWriteTokens = count(report, 'cache_creation_input_tokens', 'usage')
    return {
      inputTokens: count(report, 'input_tokens', 'usage') + cachedTokens + cacheWriteTokens,
      cachedTokens,
      cacheWriteTokens,
    }
  }
  const chat = report.prompt_tokens !== undefined
  const inputTokens = count(report, chat ? 'prompt_tokens' : 'input_tokens', 'usage')
  const cached = count(
    report,
    chat ? 'prompt_tokens_details.cached_tokens' : 'input_tokens_details.cached_tokens',
    'usage',
  )
  return { inputTokens, cachedTokens: Math.min(cached, inputTokens), cacheWriteTokens: 0 }
}

/**
 * Classifies a call against the cacheable prefix of the prompt it sent
 * (`planCache`'s `cacheableTokens`, 0 when below the model's minimum): `hot`
 * when at least 90 % of the prefix came from cache, `partial` some, `cold`
 * none with a prefix at or over the minimum, `small` none with a prefix below
 * it (nothing could have been cached). A call with cached tokens is never
 * `small`: the provider's report wins over the local estimate.
 */
export function classifyUsage(usage: NormalisedUsage, cacheableTokens: number): CacheOutcome {
  if (usage.cachedTokens === 0) return cacheableTokens === 0 ? 'small' : 'cold'
  return usage.cachedTokens >= HOT_SHARE * cacheableTokens ? 'hot' : 'partial'
}

const WARMTH: Record<CacheOutcome, number | undefined> = { hot: 3, partial: 2, cold: 1, small: undefined }

/** True when `current` read less from cache than `previous`; `small` calls compare with nothing. */
export function isColder(previous: CacheOutcome, current: CacheOutcome): boolean {
  const before = WARMTH[previous]
  const now = WARMTH[current]
  return before !== undefined && now !== undefined && now < before
}

/** The file of `compiled` at string index `at`: from the section's provenance spans, else its manifest entry. */
function fileAt(compiled: CompiledPrompt, section: string, at: number): string | undefined {
  const found = compiled.sections.find((s) => s.name === section) as
    | { files?: { path: string; start: number; end: number }[] }
    | undefined
  const span = found?.files?.find((f) => at >= f.start && at < f.end)
  if (span !== undefined) return span.path
  return compiled.manifest.find((m) => m.id === section)?.source
}

function minutes(ms: number): string {
  const m = ms / 60_000
  return m >= 120 ? `${Math.round(m / 60)} h` : `${Math.round(m)} min`
}

/** What the previous call of the session looked like, and the prompt it sent. */
export interface PreviousCall {
  outcome: UsageOutcome
  compiled: CompiledPrompt
}

/**
 * Says why a call was colder than the one before it (SPEC §8): a new version
 * (its reason, first changed section and file, from `diffCompiled` and the
 * provenance spans), a model or provider change, the same prompt after longer
 * than the provider's TTL, or, for Gemini, that its implicit cache promises
 * nothing. `undefined` when the call was not colder.
 */
export function explainColder(
  previous: PreviousCall,
  current: { outcome: UsageOutcome; compiled: CompiledPrompt; reason: string; ttl?: 'default' | 'extended' },
): string | undefined {
  const before = previous.outcome
  const now = current.outcome
  if (!isColder(before.outcome, now.outcome)) return undefined
  if (before.version !== now.version) {
    const diff = diffCompiled(previous.compiled, current.compiled)
    const where =
      diff.section === null
        ? 'the new prompt is a prefix of the old one'
        : `first change in section "${diff.section}"${(() => {
            const file = fileAt(current.compiled, diff.section, diff.firstDifference ?? 0)
            return file === undefined ? '' : ` (${file})`
          })()}`
    return `new version ${now.version} (${current.reason}) after version ${before.version}: ${where}; ${diff.commonPrefixTokens} tokens before it could still be cached`
  }
  if (before.provider !== now.provider) return `provider changed from ${before.provider} to ${now.provider}`
  if (before.model !== now.model)
    return `model changed from ${before.model} to ${now.model}: each model has its own cache`
  const ttl = CACHE_TTL_MS[now.provider]
  if (ttl === undefined) {
    return 'same prompt and model: Gemini caches implicitly with no guarantee of a hit or of how long an entry lives'
  }
  const elapsed = Date.parse(now.at) - Date.parse(before.at)
  const limit = ttl[current.ttl ?? 'default']
  if (elapsed > limit) {
    return `same prompt after ${minutes(elapsed)}, longer than the ${now.provider} cache lifetime of ${minutes(limit)}`
  }
  return `same prompt and model within the ${minutes(limit)} cache lifetime: the provider evicted the prefix or routed the call to another cache`
}

/** Builds the outcome of one call (without `why`): normalises, plans the cacheable prefix and classifies. */
export function outcomeOf(
  usage: unknown,
  compiled: CompiledPrompt,
  context: { version: number; at: string; provider: UsageProvider; model: string },
): UsageOutcome {
  const normalised = normaliseUsage(context.provider, usage)
  const { cacheableTokens } = planCache(compiled, { provider: context.provider, model: context.model })
  return { ...context, ...normalised, outcome: classifyUsage(normalised, cacheableTokens) }
}
