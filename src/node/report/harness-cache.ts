import type { CachePlanOptions, CompileWarning } from '../../compile/index.js'
import { groupDigits } from '../../compile/numbers.js'
import { cacheVerdict, servedTokens } from '../../compile/plan-cache.js'
import type { HarnessPart, HarnessPlacement } from '../instructions/index.js'

/** A stable prefix as `inspect` reports it: where it ends, its tokens, what it runs through. */
export interface ReportedPrefix {
  /**
   * Where the prefix ends: a string index into the prompt's text; in a
   * harness mode, how many of the harness view's parts it holds.
   */
  end: number
  tokens: number
  /** The last section in it (a harness mode: the placement of its last part); `null` when empty. */
  through: string | null
}

/** The cache block of a harness mode: what the harness view sends, its cached prefix and the verdict on it. */
export interface HarnessCache {
  /** Tokens of every part of the harness view (`instructions.harness`): the block's one total. */
  tokens: number
  /** The prefix the harness sends before the conversation (every part up to the first tool result), as both stable prefixes. */
  stablePrefix: { static: ReportedPrefix; session: ReportedPrefix }
  /** Tokens of that prefix the provider serves from cache: 0 unless it reaches the minimum. */
  cacheableTokens: number
  warnings: CompileWarning[]
}

const PLACES: Record<HarnessPlacement, string> = {
  'system-prompt': 'the system prompt',
  'first-user-message': 'the first user message',
  'separate-message': 'a message of its own',
  'tool-result': 'a tool result',
}

/**
 * The cache block for the text a harness sends (its view, `show
 * --as-harness`): the parts placed in the system prompt or a message at
 * the session's start form the cached prefix; a tool result arrives with
 * the conversation, outside it. The verdict is the one `cacheVerdict`
 * gives, the harness's own share (`baseTokens`) included; `warnings` keeps
 * what `planCache` said of the model (`planWarnings`) and says of the
 * harness's prefix what it says of a prompt's.
 */
export function harnessCache(
  mode: string,
  parts: readonly HarnessPart[],
  options: CachePlanOptions,
  planWarnings: readonly CompileWarning[],
): HarnessCache {
  const late = parts.findIndex((p) => p.placement === 'tool-result')
  const prefix = late === -1 ? parts : parts.slice(0, late)
  const tokens = prefix.reduce((n, p) => n + p.tokens, 0)
  const reported: ReportedPrefix = { end: prefix.length, tokens, through: prefix.at(-1)?.placement ?? null }
  const verdict = cacheVerdict(tokens, options)
  const warnings = planWarnings.filter((w) => w.code === 'unknown-model')
  if (tokens > 0 && !verdict.cacheable && options.minimumWarnings !== false) {
    const base = Math.max(0, options.baseTokens ?? 0)
    const withBase = base === 0 ? '' : ` (with ${groupDigits(base)} tokens of the harness's own before it)`
    const forModel = options.model === undefined ? options.provider : `${options.provider} (${options.model})`
    const places = [...new Set(prefix.map((p) => PLACES[p.placement]))].join(' and ')
    warnings.push({
      code: 'below-cache-minimum',
      message:
        `what ${mode} sends at the start (in ${places}) is ${groupDigits(tokens)} tokens${withBase}, ` +
        `below the ${groupDigits(verdict.minTokens)}-token minimum of ${forModel}: it is not cached on its own. ` +
        "The harness's own system prompt and tool definitions come before it in the cached prefix: " +
        'count them with --base-tokens N for a verdict that includes them.',
    })
  }
  return {
    tokens: parts.reduce((n, p) => n + p.tokens, 0),
    stablePrefix: { static: reported, session: { ...reported } },
    cacheableTokens: verdict.cacheable ? servedTokens(tokens, options.provider) : 0,
    warnings,
  }
}
