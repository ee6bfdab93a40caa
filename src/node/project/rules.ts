import { join, relative } from 'node:path'
import type { Fragment } from '../../presets/index.js'
import { modelMatches } from '../../presets/model-match.js'
import { explainRule, type LoadedFragments, loadFragments, type RuleVerdict } from '../index.js'

/** Why a rule is in or out: `explainRule`'s verdict, or out because its `models:` do not name the model. */
export type RuleDecision = RuleVerdict | { applies: false; reason: 'model'; models: string[]; model?: string }

/** One project rule and whether it applies. */
export interface JudgedRule {
  rule: Fragment
  decision: RuleDecision
}

/** The project's rule directory: `.sysprompt/rules/`. */
export function rulesDir(root: string): string {
  return join(root, '.sysprompt', 'rules')
}

/** Loads `.sysprompt/rules/**\/*.md` (ids relative to that directory: `rules/testing.md` is `testing`). */
export function loadRules(root: string): Promise<LoadedFragments> {
  return loadFragments([rulesDir(root)])
}

/**
 * Decides every rule for the working paths and the model (SPEC §6): a rule
 * applies when `selectRules` would take it and, if it lists `models:`, the
 * model matches one of them (no model given: it does not apply).
 */
export function judgeRules(
  rules: readonly Fragment[],
  paths: readonly string[],
  root: string,
  model: string | undefined,
): JudgedRule[] {
  return rules.map((rule) => {
    const verdict = explainRule(rule, paths, { root })
    if (
      verdict.applies &&
      rule.models !== undefined &&
      (model === undefined || !modelMatches(rule.models, model))
    ) {
      return { rule, decision: { applies: false, reason: 'model', models: rule.models, model } }
    }
    return { rule, decision: verdict }
  })
}

/** One sentence saying why, for `explain` and `inspect`. */
export function describeDecision(decision: RuleDecision, paths: readonly string[], root: string): string {
  switch (decision.reason) {
    case 'disabled':
      return 'it says `enabled: false`'
    case 'always':
      return 'it has no `paths:`, so it always applies'
    case 'matched':
      return `working path ${decision.path} matches \`${decision.glob}\``
    case 'excluded':
      return `working path ${decision.path} matches, but is excluded by \`${decision.glob}\``
    case 'no-match':
      return paths.length === 0
        ? 'it has `paths:` and no working path was given: pass --path with a file the agent works on'
        : `no working path (${paths.map((p) => relative(root, p) || '.').join(', ')}) matches its \`paths:\``
    case 'model':
      return decision.model === undefined
        ? `it applies only to models ${decision.models.join(', ')}: pass --model`
        : `model ${decision.model} matches none of its models (${decision.models.join(', ')})`
  }
}
