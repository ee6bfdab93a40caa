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

/** Files the Copilot CLI reads at the repository root only, beside AGENTS.md. */
const ROOT_ONLY: readonly string[] = ['CLAUDE.md', 'GEMINI.md']

/** What GitHub Copilot's code review reads of the instructions (historically): a budget `matrix` shows, not a cut of this mode. */
export const COPILOT_REVIEW_CHARS = 4000

/**
 * `copilot` mode: GitHub Copilot's CLI and coding agent, from its
 * documentation ("Adding repository custom instructions for GitHub
 * Copilot", docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions,
 * and "Adding custom instructions for GitHub Copilot CLI",
 * docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions,
 * read again for issue 31, with the CLI's own `--help` list of sources). Rules:
 * - global: `~/.copilot/copilot-instructions.md` (the CLI's user file);
 * - `.github/copilot-instructions.md` at the repository root: always;
 * - `.github/instructions/**\/*.instructions.md`: `applyTo` (one glob
 *   text, comma-separated, relative to the repository root) attaches it
 *   when the agent works on a matching file: on demand; no `applyTo`, or
 *   `applyTo` written as a YAML list (which Copilot discards), is never
 *   applied automatically: manual; `excludeAgent: coding-agent` keeps it
 *   from this mode altogether (`code-review` excludes only the reviewer);
 * - `.github/instructions` is read in the repository root and, when the
 *   CLI starts below it, in cwd too (globs still relative to the root);
 * - `AGENTS.md` in the repository root, in cwd and in the directories
 *   between (the CLI), loaded at start; below cwd, on the path of a file
 *   the agent edits: on demand;
 * - `CLAUDE.md` and `GEMINI.md` at the repository root: at start, beside
 *   the others (the CLI combines every file, no fallback between them);
 * - order: Copilot combines them in no guaranteed order; this mode lists
 *   the user file, `copilot-instructions.md`, AGENTS.md root first, then
 *   CLAUDE.md and GEMINI.md;
 * - CLAUDE.md and nested AGENTS.md settings of the IDE are not reproduced;
 *   no cap (code review's 4 000-character reading is reported by `matrix`
 *   as a budget; an explicit `maxBytes` applies the nearest-first budget).
 */
export const copilotMode: ModeRules = {
  async plan(context) {
    const root = context.root
    const dirs = dirsDown(root, context.cwd)
    context.candidates = ['copilot-instructions.md', 'AGENTS.md', ...ROOT_ONLY]
    context.walk = {
      dirs,
      description: `the repository root ${root} (.github/, CLAUDE.md, GEMINI.md) and the directories from it down to the working directory ${context.cwd} (AGENTS.md)`,
    }
    const entries: PlannedEntry[] = []
    // The user's file: "Local instructions", $HOME/.copilot/copilot-instructions.md (docs page above).
    const globals = context.options.globalFiles ?? [join(context.home, '.copilot', 'copilot-instructions.md')]
    for (const path of globals) pushAll(entries, await alwaysFile(context, path, context.home, 'global'))
    // Repository-wide: `.github/copilot-instructions.md` "in the .github directory at the root of the repository".
    pushAll(entries, await alwaysFile(context, join(root, '.github', 'copilot-instructions.md'), root))
    // Path-specific: "within or below the .github/instructions directory at the root of the repository, or
    // within or below a .github/instructions directory in the current working directory" (CLI docs; its
    // help text: "`.github/instructions/**/*.instructions.md` (in git root and cwd)").
    const instructions: string[] = []
    for (const dir of new Set([root, context.cwd])) {
      const listed = await listRules(
        join(dir, '.github', 'instructions'),
        (name) => name.endsWith('.instructions.md'),
        true,
      )
      instructions.push(...listed.files)
    }
    for (const path of instructions) {
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
    // Agent instructions: AGENTS.md "in the repository's root directory, in the current working directory"
    // and the directories between (CLI docs: "the repository root, the current working directory,
    // intermediate directories between them"), at start.
    for (const dir of dirs) pushAll(entries, await alwaysFile(context, join(dir, 'AGENTS.md'), dir))
    // "Alternatively, you can use CLAUDE.md and GEMINI.md files. These must be located at the root of the
    // repository" (CLI docs); the help text lists them beside AGENTS.md, all combined.
    for (const name of ROOT_ONLY) pushAll(entries, await alwaysFile(context, join(root, name), root))
    // "and any directories nested in the path of a file it is working on" (CLI docs): on demand.
    await nestedOnDemand(context, ['AGENTS.md'])
    return { entries, cap: optionalCap(context) }
  },
}
