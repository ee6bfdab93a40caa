import { join } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import type { RuleActivation } from '../types.js'
import {
  descriptionOf,
  fileRule,
  globList,
  listRules,
  loadRuleFile,
  pushAll,
  readRule,
} from './convention.js'

/**
 * `continue` mode: Continue, from its documentation ("Rules",
 * docs.continue.dev/customize/deep-dives/rules). The workspace is the project root. Rules:
 * - workspace rules: every `.md` in `.continue/rules/` (recursively, by
 *   path), then the global ones in `~/.continue/rules/`; hub and
 *   config-referenced rules live outside the repository and are not read;
 * - `alwaysApply: true` loads at start; with `globs` (a glob or a list,
 *   relative to the workspace) and no `alwaysApply: true`, when the agent
 *   works on a matching file: on demand; without globs, `alwaysApply:
 *   false` leaves it to the model (by its `description`) or to the user,
 *   and no `alwaysApply` at all loads it at start;
 * - `regex` (a pattern over the file's text) is shown with the rule but
 *   not evaluated: a repository's pattern run over file text could
 *   backtrack without end; a rule with a regex and no globs is taken as
 *   matching every file;
 * - joined into the system message; no cap (an explicit `maxBytes`
 *   applies the nearest-first budget).
 */
export const continueMode: ModeRules = {
  async plan(context) {
    const root = context.root
    context.candidates = []
    context.walk = { dirs: [root], description: `the workspace root ${root}` }
    const entries: PlannedEntry[] = []
    const local = await listRules(join(root, '.continue', 'rules'), (n) => n.endsWith('.md'), true)
    for (const path of local.files) pushAll(entries, await rule(context, path, root, 'project'))
    const globals =
      context.options.globalFiles ??
      (await listRules(join(context.home, '.continue', 'rules'), (n) => n.endsWith('.md'), true)).files
    for (const path of globals) pushAll(entries, await rule(context, path, join(path, '..'), 'global'))
    return { entries, cap: optionalCap(context) }
  },
}

async function rule(
  context: DiscoveryContext,
  path: string,
  dir: string,
  kind: 'global' | 'project',
): Promise<PlannedEntry | undefined> {
  const loaded = await loadRuleFile(context, path, dir)
  if (loaded === undefined) return undefined
  const read = readRule(loaded.text, path)
  const always = read.data.alwaysApply
  const regex = typeof read.data.regex === 'string' ? read.data.regex : undefined
  let globs = globList(read.data.globs)
  if (globs.length === 0 && regex !== undefined) globs = ['**']
  const description = descriptionOf(read.data)
  const activation: RuleActivation =
    always === true
      ? 'always'
      : globs.length > 0
        ? 'glob'
        : always === false
          ? description === undefined
            ? 'manual'
            : 'requested'
          : 'always'
  return fileRule(
    context,
    loaded,
    {
      activation,
      globs,
      base: context.root,
      text: read.body,
      tool: 'Continue',
      because:
        always === true
          ? 'alwaysApply: true'
          : regex !== undefined
            ? `regex ${regex} (not evaluated)`
            : always === false
              ? 'alwaysApply: false and no globs'
              : 'no alwaysApply and no globs',
      ...(description === undefined ? {} : { description }),
    },
    kind,
  )
}
