import { type CacheProvider, cacheMinimum, type ResolvedMinimum } from './cache-minimums.js'
import { groupDigits } from './numbers.js'
import type { CompiledPrompt, CompileWarning } from './types.js'

/** Which provider and model a cache verdict is for. */
export interface CacheVerdictOptions {
  provider: CacheProvider
  /** The model id as sent to the provider; selects the minimum cacheable prefix. */
  model?: string
  /** Forces the minimum cacheable prefix, in tokens, ignoring the table. */
  minTokens?: number
  /** Rows merged over the minimum table for this provider: model id or `*` glob → tokens. */
  minimums?: Record<string, number>
  /**
   * Tokens the harness sends before this system prompt in the same cached
   * prefix (its own base prompt and tool definitions): they count towards
   * the minimum. Default 0.
   */
  baseTokens?: number
}

/** What `planCache` plans for. */
export interface CachePlanOptions extends CacheVerdictOptions {
  /**
   * Whether to warn `below-cache-minimum`. Default true; pass false when
   * nobody named a provider or model, since the minimum is then a guess
   * (the command line does so without `--provider` or `--model`).
   */
  minimumWarnings?: boolean
}

/** Whether a prefix of `tokens` tokens (the system prompt's part) is cached, and against which minimum. */
export interface CacheVerdict {
  cacheable: boolean
  /** The prefix as the provider counts it: `baseTokens` plus the system prompt's tokens. */
  tokens: number
  minTokens: number
  /** `forced`, a `table` row, or the provider's `largest` minimum (model unknown or not named). */
  source: ResolvedMinimum['source']
}

/**
 * The one place that decides whether a prefix is cacheable for a provider
 * and model (SPEC §5): the prefix with the harness's own share
 * (`baseTokens`) against the model's minimum. `planCache`, the provider
 * shapes and every command's cache wording use it, so they never disagree.
 */
export function cacheVerdict(tokens: number, options: CacheVerdictOptions): CacheVerdict {
  const minimum = cacheMinimum(options.provider, options.model, options)
  const total = tokens + Math.max(0, options.baseTokens ?? 0)
  return {
    cacheable: total >= minimum.minTokens,
    tokens: total,
    minTokens: minimum.minTokens,
    source: minimum.source,
  }
}

/** Where the stable prefixes of a compiled prompt end and what a provider can reuse of them. */
export interface CachePlan {
  /** String indices into `text`, each a section end, ascending: the static prefix's end, then the session prefix's. */
  breakpoints: number[]
  /** The breakpoints whose prefix reaches the minimum: where Anthropic's `cache_control` goes (none on a shorter prefix). */
  marks: number[]
  /** Tokens of the system prompt the provider can serve from cache across sessions. */
  cacheableTokens: number
  /** The minimum cacheable prefix used for the plan. */
  minTokens: number
  /** Codes `below-cache-minimum`, `unknown-model`, `session-before-static`. */
  warnings: CompileWarning[]
}

/** Anthropic accepts at most this many `cache_control` marks per request. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4

/** OpenAI reports cache hits in steps of this many tokens. */
const OPENAI_CACHE_STEP = 128

interface Prefix {
  kind: 'static' | 'session'
  end: number
  tokens: number
  section: string
}

/**
 * Plans prompt caching for one provider (SPEC §5). Breakpoints go at the
 * ends of the stable prefixes only, static first, then static + session:
 * those are the prefixes another session (or a later turn) shares. No
 * breakpoint is spent on `turn` sections or on the end of the text past the
 * session prefix; the caller's own marks on the conversation cover that, and
 * Anthropic's limit of four marks is shared with them. For Anthropic the
 * breakpoints are where `cache_control` goes; OpenAI and Gemini cache
 * implicitly, and the breakpoints only mark the prefixes. `cacheableTokens`
 * is the longest stable prefix when it reaches the model's minimum (for
 * OpenAI rounded down to a 128-token step), else 0. Tools precede the system
 * prompt in every provider's cached prefix but are not counted here (their
 * rendering is provider-internal), so the minimum check errs on the side of
 * warning.
 */
export function planCache(compiled: CompiledPrompt, options: CachePlanOptions): CachePlan {
  const { provider, model } = options
  const minimum = cacheVerdict(0, options)
  const warnings: CompileWarning[] = []
  const base = Math.max(0, options.baseTokens ?? 0)
  const withBase = base === 0 ? '' : ` (with ${groupDigits(base)} tokens of the harness's own before it)`
  if (model !== undefined && minimum.source === 'largest') {
    warnings.push({
      code: 'unknown-model',
      message:
        `model "${model}" is not in the ${provider} cache-minimum table; assuming ${provider}'s largest ` +
        `minimum of ${groupDigits(minimum.minTokens)} tokens. Pass minTokens or minimums to planCache if it caches shorter prefixes.`,
    })
  }

  const prefixes = stablePrefixes(compiled).slice(0, ANTHROPIC_MAX_BREAKPOINTS)
  const forModel = model === undefined ? provider : `${provider} (${model})`
  const verdicts = prefixes.map((prefix) => cacheVerdict(prefix.tokens, options))
  for (const [i, prefix] of prefixes.entries()) {
    if (verdicts[i]!.cacheable || options.minimumWarnings === false) continue
    const what = i < prefixes.length - 1 ? 'it is not cached on its own' : 'it is not cached'
    warnings.push({
      code: 'below-cache-minimum',
      section: prefix.section,
      message:
        `the ${prefix.kind === 'static' ? 'static' : 'static + session'} prefix, through section "${prefix.section}", ` +
        `is ${groupDigits(prefix.tokens)} tokens${withBase}, below the ${groupDigits(minimum.minTokens)}-token minimum of ${forModel}: ${what}. ` +
        'Move more stable text before it, or accept the miss.',
    })
  }
  const first = compiled.sections[0]
  if (prefixes.length === 0 && first !== undefined) {
    warnings.push({
      code: 'below-cache-minimum',
      section: first.name,
      message:
        `the first section, "${first.name}", changes between turns, so no part of the system prompt is cached ` +
        'across sessions. Give it a later order or move its values to the environment message.',
    })
  }
  warnings.push(...sessionBeforeStatic(compiled))

  const cached = prefixes.filter((_, i) => verdicts[i]!.cacheable).at(-1)?.tokens ?? 0
  const cacheableTokens = servedTokens(cached, provider)
  return {
    breakpoints: prefixes.map((p) => p.end),
    marks: prefixes.filter((_, i) => verdicts[i]!.cacheable).map((p) => p.end),
    cacheableTokens,
    minTokens: minimum.minTokens,
    warnings,
  }
}

/** Tokens of a cached prefix that the provider serves from cache: OpenAI in 128-token steps, the others all. */
export function servedTokens(tokens: number, provider: CacheProvider): number {
  return provider === 'openai' ? Math.floor(tokens / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP : tokens
}

function stablePrefixes(compiled: CompiledPrompt): Prefix[] {
  const out: Prefix[] = []
  const { static: fixed, session } = compiled.stablePrefix
  const endingAt = (end: number) => compiled.sections.find((s) => s.end === end)?.name ?? ''
  if (fixed.end > 0)
    out.push({ kind: 'static', end: fixed.end, tokens: fixed.tokens, section: endingAt(fixed.end) })
  if (session.end > fixed.end) {
    out.push({ kind: 'session', end: session.end, tokens: session.tokens, section: endingAt(session.end) })
  }
  return out
}

// A static section after a session one is shut out of the static prefix that
// every session shares; one warning per session section, naming what it blocks.
function sessionBeforeStatic(compiled: CompiledPrompt): CompileWarning[] {
  const warnings: CompileWarning[] = []
  for (const [i, s] of compiled.sections.entries()) {
    if (s.stability !== 'session') continue
    const blocked = compiled.sections
      .slice(i + 1)
      .filter((later) => later.stability === 'static')
      .map((later) => `"${later.name}"`)
    if (blocked.length === 0) continue
    warnings.push({
      code: 'session-before-static',
      section: s.name,
      message:
        `session section "${s.name}" (order ${s.order}) comes before static section${blocked.length > 1 ? 's' : ''} ` +
        `${blocked.join(', ')}, which therefore miss the prefix shared across sessions. ` +
        `Give "${s.name}" a higher order than them, or them a lower one.`,
    })
  }
  return warnings
}
