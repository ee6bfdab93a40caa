/** The providers whose prompt caches sysprompt plans for. */
export type CacheProvider = 'anthropic' | 'openai' | 'gemini'

/** One row of the minimum-cacheable-prefix table. */
export interface CacheMinimum {
  provider: CacheProvider
  /** A model id, lower case, without vendor prefix or date; `*` matches any run of characters. */
  model: string
  /** The shortest prefix, in tokens, that the provider caches for this model. */
  minTokens: number
}

/**
 * The shortest prefix each provider caches, by model family (provider
 * documentation, late 2026; see ANCHORS "Provider prompt caching"). A
 * shorter prefix is silently not cached. The one place these numbers live:
 * callers override rows with `planCache`'s `minimums` or force one value with
 * `minTokens` when a provider changes them before sysprompt does.
 */
export const CACHE_MINIMUMS: readonly CacheMinimum[] = [
  ...family('anthropic', 1024, [
    'claude-3-7-sonnet',
    'claude-sonnet-4',
    'claude-sonnet-4-0',
    'claude-sonnet-4-5',
    'claude-sonnet-4-6',
    'claude-opus-4',
    'claude-opus-4-0',
    'claude-opus-4-1',
  ]),
  ...family('anthropic', 2048, ['claude-3-haiku', 'claude-3-5-haiku']),
  ...family('anthropic', 4096, ['claude-opus-4-5', 'claude-opus-4-6', 'claude-haiku-4-5']),
  // OpenAI caches every model's prompts from 1024 tokens on.
  { provider: 'openai', model: '*', minTokens: 1024 },
  ...family('gemini', 2048, ['gemini-2.5-*']),
  ...family('gemini', 4096, ['gemini-3-*', 'gemini-3.*']),
]

function family(provider: CacheProvider, minTokens: number, models: string[]): CacheMinimum[] {
  return models.map((model) => ({ provider, model, minTokens }))
}

/** How `cacheMinimum` found its number. */
export interface ResolvedMinimum {
  minTokens: number
  /** `forced` by `minTokens`, a `table` row (or a caller's override row), or the provider's `largest` for an unknown or unnamed model. */
  source: 'forced' | 'table' | 'largest'
  /** The row's model pattern when `source` is `table`. */
  pattern?: string
}

/**
 * Strips what varies around a model family's name: a vendor path
 * (`models/`, `anthropic/`), a Bedrock prefix (`us.anthropic.`,
 * `global.anthropic.`, `us-gov.anthropic.`) and version
 * suffix (`-v1:0`), a Vertex `@date`, a `-20250514` date and `-latest`.
 * Anthropic versions written with a dot (`claude-sonnet-4.5`, as some
 * gateways spell them) become the API's hyphen form.
 */
export function normalizeModel(model: string, provider?: CacheProvider): string {
  const id = model
    .trim()
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/^(?:[a-z-]+\.)?anthropic\./, '')
    .replace(/-v\d+(?::\d+)?$/, '')
    .replace(/@.*$/, '')
    .replace(/-(?:\d{8}|latest)$/, '')
  return provider === 'anthropic' ? id.replace(/(\d)\.(?=\d)/g, '$1-') : id
}

function matches(pattern: string, model: string): boolean {
  if (!pattern.includes('*')) return pattern === model
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${source}$`).test(model)
}

// Exact rows beat globs; among globs the longest literal text wins, so a
// caller's `claude-*` loses to the table's exact row only when it is itself
// less specific (caller rows are looked at first and win ties).
function specificity(pattern: string): number {
  return pattern.includes('*') ? pattern.replaceAll('*', '').length : Number.MAX_SAFE_INTEGER
}

/**
 * The minimum cacheable prefix for a provider and model. `minTokens` wins
 * outright; else the caller's `minimums` (model pattern → tokens, looked at
 * before the table) and the table's rows for the provider are matched against
 * the normalised model id, most specific pattern first. A model that matches
 * nothing, or no model at all, takes the provider's largest minimum (the safe
 * guess: a prefix that long is cached by every model of the provider).
 */
export function cacheMinimum(
  provider: CacheProvider,
  model?: string,
  options: { minimums?: Record<string, number>; minTokens?: number } = {},
): ResolvedMinimum {
  if (options.minTokens !== undefined) return { minTokens: options.minTokens, source: 'forced' }
  const overrides: CacheMinimum[] = Object.entries(options.minimums ?? {}).map(([pattern, minTokens]) => ({
    provider,
    model: normalizePattern(provider, pattern),
    minTokens,
  }))
  const replaced = new Set(overrides.map((row) => row.model))
  const rows = [
    ...overrides,
    ...CACHE_MINIMUMS.filter((row) => row.provider === provider && !replaced.has(row.model)),
  ]
  if (model !== undefined) {
    const id = normalizeModel(model, provider)
    let best: CacheMinimum | undefined
    for (const row of rows) {
      if (!matches(row.model, id)) continue
      if (best === undefined || specificity(row.model) > specificity(best.model)) best = row
    }
    if (best !== undefined) return { minTokens: best.minTokens, source: 'table', pattern: best.model }
  }
  return { minTokens: Math.max(...rows.map((row) => row.minTokens)), source: 'largest' }
}

function normalizePattern(provider: CacheProvider, pattern: string): string {
  return pattern.includes('*') ? pattern.trim().toLowerCase() : normalizeModel(pattern, provider)
}
