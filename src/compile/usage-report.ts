import type { CacheOutcome, SessionVersion, UsageOutcome } from './types.js'

/** Calls, tokens and hit rate (cached ÷ input tokens) of a set of calls. */
export interface UsageTotals {
  calls: number
  inputTokens: number
  cachedTokens: number
  cacheWriteTokens: number
  /** cachedTokens ÷ inputTokens; 0 without input. */
  hitRate: number
  outcomes: Record<CacheOutcome, number>
}

/** How often the prompt up to and including one section was served from cache. */
export interface SectionPrefixUsage {
  version: number
  section: string
  /** Tokens from the start of the prompt to the end of this section (local counts). */
  prefixTokens: number
  calls: number
  /** Calls whose cached tokens covered this prefix. */
  cachedCalls: number
  /** cachedCalls ÷ calls. */
  hitRate: number
}

/** A session's cache report (SPEC §8): per session, per version and per section prefix. */
export interface UsageReport extends UsageTotals {
  versions: ({ version: number } & UsageTotals)[]
  sections: SectionPrefixUsage[]
}

function totals(outcomes: UsageOutcome[]): UsageTotals {
  const sum = { calls: outcomes.length, inputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 }
  const counts: Record<CacheOutcome, number> = { hot: 0, partial: 0, cold: 0, small: 0 }
  for (const o of outcomes) {
    sum.inputTokens += o.inputTokens
    sum.cachedTokens += o.cachedTokens
    sum.cacheWriteTokens += o.cacheWriteTokens
    counts[o.outcome]++
  }
  return { ...sum, hitRate: sum.inputTokens === 0 ? 0 : sum.cachedTokens / sum.inputTokens, outcomes: counts }
}

/**
 * Summarises a session's usage outcomes: totals and hit rate for the session
 * and each version, and for each section of each version used, how many calls
 * had the prompt up to that section's end served from cache. Prefix tokens
 * are the local counts (approximate for Anthropic and Gemini, whose
 * tokenizers are not public), so a prefix counts as cached when the
 * provider's cached tokens reach it.
 */
export function summariseUsage(outcomes: UsageOutcome[], history: SessionVersion[]): UsageReport {
  const byVersion = new Map<number, UsageOutcome[]>()
  for (const o of outcomes) byVersion.set(o.version, [...(byVersion.get(o.version) ?? []), o])
  const versions = [...byVersion.keys()].sort((a, b) => a - b)
  const sections: SectionPrefixUsage[] = []
  for (const number of versions) {
    const calls = byVersion.get(number)!
    const compiled = history.find((v) => v.version === number)?.compiled
    if (compiled === undefined) continue
    let prefixTokens = 0
    for (const section of [...compiled.sections].sort((a, b) => a.start - b.start)) {
      prefixTokens += section.tokens
      const cachedCalls = calls.filter((c) => c.cachedTokens >= prefixTokens).length
      sections.push({
        version: number,
        section: section.name,
        prefixTokens,
        calls: calls.length,
        cachedCalls,
        hitRate: cachedCalls / calls.length,
      })
    }
  }
  return {
    ...totals(outcomes),
    versions: versions.map((version) => ({ version, ...totals(byVersion.get(version)!) })),
    sections,
  }
}
