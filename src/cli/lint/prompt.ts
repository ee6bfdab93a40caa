import type { CompiledPrompt } from '../../compile/index.js'
import { groupDigits } from '../../compile/numbers.js'
import { cacheOptions, cachePlan, type ProjectPrompt } from '../../node/project/project.js'
import { harnessCache } from '../../node/report/harness-cache.js'
import type { Finding } from './types.js'

/** Default of `--max-tokens`: a system prompt above it is reported as a warning. */
export const DEFAULT_MAX_TOKENS = 8000

/** Where a section's words are written: its file and first body line, when it comes from one. */
function sectionSite(project: ProjectPrompt, section: string | undefined): Partial<Finding> {
  if (section === undefined) return {}
  const origin = project.origins.get(section)
  if (origin === undefined || origin.builtin) return { section }
  return { section, file: origin.file, line: origin.bodyLine, column: 1 }
}

/** A system prompt over `--max-tokens` (warning), naming the sections that weigh most. */
export function lintBudget(compiled: CompiledPrompt, maxTokens: number): Finding[] {
  if (compiled.tokens <= maxTokens) return []
  const heaviest = [...compiled.sections]
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, 3)
    .map((s) => `${s.name} ${groupDigits(s.tokens)}`)
    .join(', ')
  return [
    {
      severity: 'warning',
      code: 'over-budget',
      message: `the system prompt is ${groupDigits(compiled.tokens)} tokens (${compiled.tokenizer}), over the budget of ${groupDigits(maxTokens)} (--max-tokens); heaviest sections: ${heaviest}`,
    },
  ]
}

/**
 * What would keep the provider's cache from working (SPEC §5 `planCache`):
 * stable prefixes below the model's minimum, an unknown model, a session
 * section in front of static ones. Warnings, placed at the section's file
 * when it has one.
 */
export function lintCache(project: ProjectPrompt, compiled: CompiledPrompt): Finding[] {
  const plan = cachePlan(project, compiled)
  const { mode } = project.options
  // In a harness mode the cached prefix is what the harness sends (its view), as inspect's cache block says.
  const warnings =
    mode === 'sysprompt'
      ? plan.warnings
      : harnessCache(mode, project.discovery.harness.parts, cacheOptions(project.options), plan.warnings)
          .warnings
  return warnings.map((w) => ({
    severity: 'warning',
    code: w.code,
    message: w.message,
    ...sectionSite(project, w.section),
  }))
}

/**
 * Compile warnings no file-level rule explains: `turn` data in a section
 * that has no template file of its own (preset sections), and budget cuts.
 */
export function lintCompileWarnings(project: ProjectPrompt, compiled: CompiledPrompt): Finding[] {
  return compiled.warnings
    .filter((w) => {
      if (w.code !== 'turn-in-system-prompt' || w.section === undefined) return true
      const origin = project.origins.get(w.section)
      return origin === undefined || origin.builtin
    })
    .map((w) => ({
      severity: 'warning',
      code: w.code,
      message: w.message,
      ...sectionSite(project, w.section),
    }))
}
