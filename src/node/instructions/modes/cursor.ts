import { join } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import { ruleGlobs } from '../globs.js'
import { dirsBelow, nestedOnDemand } from '../on-demand.js'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import {
  alwaysFile,
  descriptionOf,
  fileRule,
  listRules,
  loadRuleFile,
  pushAll,
  readRule,
  skipWrongNames,
} from './convention.js'

/**
 * `cursor` mode: Cursor, from its documentation ("Rules",
 * cursor.com/docs/context/rules). The workspace is the project root. Rules:
 * - `.cursor/rules/**\/*.mdc` at the root: `alwaysApply: true` (the
 *   boolean; the text "true" is not) loads at start; else `globs` (a list
 *   or one comma-separated text, relative to the root) attaches it when a
 *   matching file is in context: on demand; else a `description` lets the
 *   agent request it; else it is manual (`@rule`); the body is sent
 *   without its front matter;
 * - a plain `.md` in `.cursor/rules` is ignored;
 * - nested `.cursor/rules` in a subdirectory apply to the files there:
 *   their always rules attach when the agent works under that directory,
 *   their globs are relative to it;
 * - the legacy `.cursorrules` at the root: at start;
 * - `AGENTS.md` at the root at start; in a subdirectory below cwd, when the
 *   agent works there: on demand;
 * - order (Cursor documents none): rules sorted by path, `.cursorrules`,
 *   AGENTS.md; user rules live in Cursor's settings, not in files; no cap
 *   (the documentation advises under 500 lines a rule).
 */
export const cursorMode: ModeRules = {
  async plan(context) {
    const root = context.root
    context.candidates = ['.cursorrules', 'AGENTS.md']
    context.walk = { dirs: [root], description: `the workspace root ${root}` }
    const entries: PlannedEntry[] = []
    // Project rules in .cursor/rules at the root (cursor.com/docs/context/rules).
    pushAll(entries, ...(await ruleDir(context, root, true)))
    // The same page: nested .cursor/rules in a subdirectory, scoped to the files there.
    for (const dir of await dirsBelow(context, root)) await ruleDir(context, dir, false)
    // The same page: the legacy .cursorrules at the project root, still read.
    pushAll(entries, await alwaysFile(context, join(root, '.cursorrules'), root))
    // The same page: AGENTS.md at the project root, and nested ones for the files of their subdirectory.
    pushAll(entries, await alwaysFile(context, join(root, 'AGENTS.md'), root))
    await nestedOnDemand(context, ['AGENTS.md'])
    return { entries, cap: optionalCap(context) }
  },
}

async function ruleDir(
  context: DiscoveryContext,
  owner: string,
  atRoot: boolean,
): Promise<(PlannedEntry | undefined)[]> {
  // Rule files are `.mdc`, at any depth of .cursor/rules (cursor.com/docs/context/rules).
  const listed = await listRules(join(owner, '.cursor', 'rules'), (name) => name.endsWith('.mdc'), true)
  skipWrongNames(
    context,
    listed.others.filter((path) => path.endsWith('.md')),
    'Cursor reads only .mdc files in .cursor/rules; a plain .md there is ignored: rename it to .mdc',
  )
  const out: (PlannedEntry | undefined)[] = []
  for (const path of listed.files) {
    const loaded = await loadRuleFile(context, path, owner)
    if (loaded === undefined) continue
    const rule = readRule(loaded.text, path)
    const globs = ruleGlobs(rule.data.globs, 'picomatch')
    const description = descriptionOf(rule.data)
    const always = rule.data.alwaysApply === true
    const filing = {
      text: rule.body,
      tool: 'Cursor',
      base: owner,
      description,
    }
    if (always && !atRoot) {
      context.activations.set(path, 'always')
      context.onDemand.push({ loaded, trigger: { kind: 'under', dir: owner }, text: rule.body })
      continue
    }
    out.push(
      await fileRule(context, loaded, {
        ...filing,
        activation: always
          ? 'always'
          : globs.patterns.length > 0
            ? 'glob'
            : description !== undefined
              ? 'requested'
              : 'manual',
        globs: globs.patterns,
        written: globs.written,
        because: always
          ? 'alwaysApply: true'
          : description !== undefined
            ? 'it has a description and no globs'
            : rule.data.alwaysApply === 'true'
              ? 'alwaysApply is the text "true", not the boolean'
              : 'it has no alwaysApply, globs or description',
      }),
    )
  }
  return out
}
