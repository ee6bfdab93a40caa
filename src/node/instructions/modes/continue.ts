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

/**
 * `continue` mode: Continue, from its documentation ("Rules",
 * docs.continue.dev/customize/deep-dives/rules). The workspace is the project root. Rules:
 * - `AGENTS.md` at the workspace root, always (its source reads no other
 *   agent file, see `plan`);
 * - workspace rules: every `.md` in `.continue/rules/` (recursively, by
 *   path), then the global ones in `~/.continue/rules/`, then the same of
 *   `.continue/prompts/`; `invokable: true` files are slash commands, left
 *   out; hub and config-referenced rules live outside the repository and
 *   are not read;
 * - `alwaysApply: true` loads at start; with `globs` (a glob or a list,
 *   relative to the workspace) and no `alwaysApply: true`, when the agent
 *   works on a matching file: on demand; without globs, `alwaysApply:
 *   false` leaves it to the model (by its `description`) or to the user,
 *   and no `alwaysApply` at all loads it at start;
 * - `regex` (a pattern over the file's text) is not evaluated: a
 *   repository's pattern run over file text could backtrack without end;
 *   a rule with a regex and no globs is taken as matching every file;
 * - joined into the system message; no cap (an explicit `maxBytes`
 *   applies the nearest-first budget).
 */
export const continueMode: ModeRules = {
  async plan(context) {
    const root = context.root
    // Every rule is listed from its directory, none read by its name: the
    // context's empty candidates stand, so explain says so of any other file.
    const entries: PlannedEntry[] = []
    // The agent file at the workspace root, always applied. Continue lists
    // AGENTS.md, AGENT.md and CLAUDE.md, but its loop breaks after the first
    // name whether or not the file exists, so only AGENTS.md is ever read
    // (continuedev/continue core/config/markdown/loadMarkdownRules.ts @d0a3c0b6, 2026-06-18).
    pushAll(entries, await alwaysFile(context, join(root, 'AGENTS.md'), root))
    // Then every `.md` below `.continue/rules/` and `.continue/prompts/`, one
    // directory after the other (same file, `dirsToCheck`), skipping `invokable: true` (slash commands).
    for (const dir of ['rules', 'prompts']) {
      const local = await listRules(join(root, '.continue', dir), (n) => n.endsWith('.md'), true)
      for (const path of local.files) pushAll(entries, await rule(context, path))
      const globals =
        dir === 'rules' && context.options.globalFiles !== undefined
          ? context.options.globalFiles
          : (await listRules(join(context.home, '.continue', dir), (n) => n.endsWith('.md'), true)).files
      for (const path of globals) pushAll(entries, await rule(context, path, 'global'))
    }
    return { entries, cap: optionalCap(context) }
  },
}

/** A rule file, of the workspace unless `kind` says global; confined to the root, or to its own directory outside it. */
async function rule(
  context: DiscoveryContext,
  path: string,
  kind?: 'global',
): Promise<PlannedEntry | undefined> {
  const loaded = await loadRuleFile(context, path, join(path, '..'))
  if (loaded === undefined) return undefined
  const read = readRule(loaded.text, path)
  if (read.data.invokable === true) {
    context.skip(
      path,
      'manual-rule',
      'Continue leaves out a rule with invokable: true: it is a slash command the user runs',
    )
    return undefined
  }
  const always = read.data.alwaysApply
  const written = ruleGlobs(read.data.globs, 'minimatch')
  let globs = written.patterns
  if (globs.length === 0 && typeof read.data.regex === 'string') globs = ['**']
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
      syntax: 'minimatch',
      ...(written.patterns.length > 0 ? { written: written.written } : {}),
      base: context.root,
      text: read.body,
      tool: 'Continue',
      // Shown only for a rule loaded on request or by hand, which is one with alwaysApply: false and no globs.
      because: 'alwaysApply: false and no globs',
      description,
    },
    kind,
  )
}
