import { join, relative } from 'node:path'
import { dirsDown } from '../git-root.js'
import { ruleGlobs } from '../globs.js'
import { nestedOnDemand } from '../on-demand.js'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import {
  alwaysFile,
  descriptionOf,
  fileRule,
  globList,
  listRules,
  loadRuleFile,
  pushAll,
  readRule,
} from './convention.js'

/** What GitHub Copilot's code review reads of the instructions (historically): a budget `matrix` shows, not a cut of this mode. */
export const COPILOT_REVIEW_CHARS = 4000

/**
 * `copilot` mode: GitHub Copilot's CLI and coding agent, from its
 * documentation ("Adding repository custom instructions for GitHub
 * Copilot", docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions,
 * and the Copilot CLI's "Custom instructions" page,
 * docs.github.com/en/copilot/how-tos/use-copilot-agents/use-copilot-cli). Rules:
 * - global: `~/.copilot/copilot-instructions.md` (the CLI's user file);
 * - `.github/copilot-instructions.md` at the repository root: always;
 * - `.github/instructions/**\/*.instructions.md`: `applyTo` (one glob
 *   text, comma-separated, relative to the repository root) attaches it
 *   when the agent works on a matching file: on demand; no `applyTo`, or
 *   `applyTo` written as a YAML list (which Copilot discards), is never
 *   applied automatically: manual; `excludeAgent: coding-agent` keeps it
 *   from this mode altogether (`code-review` excludes only the reviewer);
 * - `AGENTS.md` in the repository root, in cwd and in the directories
 *   between (the CLI), loaded at start; below cwd, on the path of a file
 *   the agent edits: on demand;
 * - order: Copilot combines them in no guaranteed order; this mode lists
 *   the user file, `copilot-instructions.md`, then AGENTS.md root first;
 * - CLAUDE.md and nested AGENTS.md settings of the IDE are not reproduced;
 *   no cap (code review's 4 000-character reading is reported by `matrix`
 *   as a budget; an explicit `maxBytes` applies the nearest-first budget).
 */
export const copilotMode: ModeRules = {
  async plan(context) {
    const root = context.root
    const dirs = dirsDown(root, context.cwd)
    context.candidates = ['copilot-instructions.md', 'AGENTS.md']
    context.walk = {
      dirs,
      description: `the repository root ${root} (.github/) and the directories from it down to the working directory ${context.cwd} (AGENTS.md)`,
    }
    const entries: PlannedEntry[] = []
    const globals = context.options.globalFiles ?? [join(context.home, '.copilot', 'copilot-instructions.md')]
    for (const path of globals) pushAll(entries, await alwaysFile(context, path, context.home, 'global'))
    const github = join(root, '.github')
    pushAll(entries, await alwaysFile(context, join(github, 'copilot-instructions.md'), root))
    const instructions = await listRules(
      join(github, 'instructions'),
      (name) => name.endsWith('.instructions.md'),
      true,
    )
    for (const path of instructions.files) {
      const loaded = await loadRuleFile(context, path, root)
      if (loaded === undefined) continue
      const rule = readRule(loaded.text, path)
      const excluded = globList(rule.data.excludeAgent)
      if (excluded.includes('coding-agent')) {
        context.activations.set(path, 'manual')
        context.skip(
          path,
          'excluded-agent',
          'its front matter says `excludeAgent: coding-agent`, so the Copilot coding agent and CLI never read it',
        )
        continue
      }
      const applyTo = rule.data.applyTo
      const globs = ruleGlobs(typeof applyTo === 'string' ? applyTo : undefined, 'vscode')
      const shown = relative(root, path)
      pushAll(
        entries,
        await fileRule(context, loaded, {
          activation: globs.patterns.length > 0 ? 'glob' : 'manual',
          globs: globs.patterns,
          syntax: 'vscode',
          written: globs.written,
          base: root,
          text: rule.body,
          tool: 'Copilot',
          because: Array.isArray(applyTo)
            ? `${shown} gives applyTo as a YAML list, which Copilot discards: write one text, "a/**,b/**"`
            : 'it has no applyTo',
          description: descriptionOf(rule.data),
        }),
      )
    }
    for (const dir of dirs) pushAll(entries, await alwaysFile(context, join(dir, 'AGENTS.md'), dir))
    await nestedOnDemand(context, ['AGENTS.md'])
    return { entries, cap: optionalCap(context) }
  },
}
