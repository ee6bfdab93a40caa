import { join } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import type { RuleActivation } from '../discovery-options.js'
import { ruleGlobs } from '../globs.js'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import {
  alwaysFile,
  descriptionOf,
  fileRule,
  listRules,
  loadRuleFile,
  pushAll,
  readRule,
} from './convention.js'

const INCLUSIONS: Readonly<Record<string, RuleActivation>> = {
  always: 'always',
  fileMatch: 'glob',
  auto: 'requested',
  manual: 'manual',
}

/**
 * `kiro` mode: Kiro, from its documentation ("Steering",
 * kiro.dev/docs/steering). The workspace is the project root. Rules:
 * - global steering: `~/.kiro/steering/*.md`; workspace steering:
 *   `.kiro/steering/*.md`; the workspace wins, so it comes after;
 * - `inclusion: always` (the default when absent) loads at start;
 *   `fileMatch` with `fileMatchPattern` (a glob or a list, relative to the
 *   workspace) when the agent works on a matching file: on demand;
 *   `auto` when the model asks for it by its `description` (and `name`);
 *   `manual` only when the user names it (`#name`); an unknown inclusion
 *   is never applied;
 * - `AGENTS.md` at the root: always included;
 * - no cap documented (an explicit `maxBytes` applies the nearest-first budget).
 */
export const kiroMode: ModeRules = {
  async plan(context) {
    const root = context.root
    context.candidates = ['AGENTS.md']
    context.walk = { dirs: [root], description: `the workspace root ${root}` }
    const entries: PlannedEntry[] = []
    // Global steering: ~/.kiro/steering/*.md (kiro.dev/docs/steering).
    const globalDir = join(context.home, '.kiro', 'steering')
    const globals =
      context.options.globalFiles ?? (await listRules(globalDir, (n) => n.endsWith('.md'), false)).files
    for (const path of globals) pushAll(entries, await steering(context, path, 'global'))
    // Workspace steering: .kiro/steering/*.md at the workspace root, after the global files (the same
    // page: workspace steering wins where the two conflict).
    const local = await listRules(join(root, '.kiro', 'steering'), (n) => n.endsWith('.md'), false)
    for (const path of local.files) pushAll(entries, await steering(context, path))
    // The same page: an AGENTS.md at the workspace root is always included.
    pushAll(entries, await alwaysFile(context, join(root, 'AGENTS.md'), root))
    return { entries, cap: optionalCap(context) }
  },
}

/** A steering file, of the workspace unless `kind` says global; confined to the root, or to its own directory outside it. */
async function steering(
  context: DiscoveryContext,
  path: string,
  kind?: 'global',
): Promise<PlannedEntry | undefined> {
  const loaded = await loadRuleFile(context, path, join(path, '..'))
  if (loaded === undefined) return undefined
  const rule = readRule(loaded.text, path)
  const inclusion = typeof rule.data.inclusion === 'string' ? rule.data.inclusion : 'always'
  return fileRule(
    context,
    loaded,
    {
      activation: INCLUSIONS[inclusion] ?? 'manual',
      ...kiroGlobs(rule.data.fileMatchPattern),
      base: context.root,
      text: rule.body,
      tool: 'Kiro',
      because:
        INCLUSIONS[inclusion] === undefined
          ? `inclusion ${inclusion} is not one Kiro knows`
          : `inclusion: ${inclusion}`,
      description: descriptionOf(rule.data),
    },
    kind,
  )
}

/** `fileMatchPattern` (a glob or a list, never split), matched as minimatch matches it, shown as written. */
function kiroGlobs(value: unknown): { globs: string[]; syntax: 'minimatch'; written: string } {
  const { patterns, written } = ruleGlobs(value, 'minimatch')
  return { globs: patterns, syntax: 'minimatch', written }
}
