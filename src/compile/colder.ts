import type { RecordedUsage } from './call-record.js'
import type { UsageProvider } from './types.js'

/** OpenAI caches prefixes in steps of this many tokens… */
const OPENAI_STEP = 128
/** …from this length on. */
const OPENAI_MINIMUM = 1024

/**
 * The input tokens a call made reusable for the next call of its thread
 * (SPEC §11): Anthropic, what it read from cache plus what it wrote;
 * OpenAI, its input rounded down to a multiple of 128, nothing under
 * 1 024; Gemini, its prompt tokens.
 */
export function reusableAfter(provider: UsageProvider, usage: RecordedUsage): number {
  if (provider === 'anthropic') return usage.cacheReadTokens + usage.cacheWriteTokens
  if (provider === 'openai') {
    const rounded = Math.floor(usage.inputTokens / OPENAI_STEP) * OPENAI_STEP
    return rounded < OPENAI_MINIMUM ? 0 : rounded
  }
  return usage.inputTokens
}

/** How a call compares with the previous call of its thread. */
export interface Warmth {
  /** What the previous call made reusable. */
  reusable: number
  /** What this call read from cache. */
  read: number
  /** Tokens that could have been read from cache and were not (0 when not colder). */
  lost: number
  colder: boolean
}

/**
 * Whether a call is colder than its thread's previous call: it read fewer
 * cached tokens than the previous call made reusable. The one engine for
 * `record`'s summary, `why`, `sessions usage` and the stored outcome.
 */
export function warmth(provider: UsageProvider, previous: RecordedUsage, current: RecordedUsage): Warmth {
  const reusable = reusableAfter(provider, previous)
  const read = current.cacheReadTokens
  const lost = Math.max(0, Math.min(reusable, current.inputTokens) - read)
  return { reusable, read, lost, colder: read < reusable && lost > 0 }
}
