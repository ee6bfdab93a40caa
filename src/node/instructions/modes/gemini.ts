import { basename, dirname, join } from 'node:path'
import { byCodeUnit } from '../../../registry/tool-order.js'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { trimInlined } from '../import-spans.js'
import { nestedOnDemand } from '../on-demand.js'
import { type ModeRules, optionalCap, type PlannedEntry, plannedEntry, uniqueNames } from '../plan.js'
import { isFile, loadFound } from '../read.js'
import { inlineGeminiImports } from './gemini-imports.js'

/**
 * `gemini` mode: Gemini CLI as observed (ANCHORS, Gemini CLI core 0.61.0). Rules:
 * - names: `GEMINI.md`, plus the configured `context.fileName` list
 *   (`names`), added to it rather than replacing it; every name present in
 *   a directory is read; CLAUDE.md and AGENTS.md are never read unless named;
 * - global: each name in `~/.gemini`, in name order, except a name only a
 *   repository's settings add (withheld: Gemini CLI would read the user's
 *   `~/.gemini/oauth_creds.json` if a repository named it);
 * - project walk from cwd up to the git root (or the `root` option);
 *   outside a git repository, cwd alone; `~/.gemini` is never a project
 *   directory; nothing below cwd is read at start-up (files there arrive
 *   just in time, with the result of a tool that touches their directory:
 *   on demand); when cwd is the home directory there is no project walk;
 * - order: global first, then the project paths sorted as plain strings
 *   (so `Apps/GEMINI.md` comes before the root's `GEMINI.md`);
 * - imports: `@path` references inlined with HTML comment markers, depth 5,
 *   confined to the root (global files: `~/.gemini`), backtick spans
 *   skipped, a failed import becomes an HTML comment, and a cycle back to
 *   the top file inlines it twice (see `gemini-imports.ts`);
 * - each file's text is trimmed, and a blank file is left out;
 * - no cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const geminiMode: ModeRules = {
  async plan(context) {
    const names = uniqueNames(['GEMINI.md', ...(context.options.names ?? [])])
    const globalDir = join(context.home, '.gemini')
    const ceiling = context.gitRoot ?? context.cwd
    const dirs =
      context.cwd === context.home ? [] : dirsDown(ceiling, context.cwd).filter((dir) => dir !== globalDir)
    context.candidates = names
    context.walk = {
      dirs,
      description:
        context.gitRoot === null
          ? `only the working directory ${context.cwd} (there is no git root)`
          : `the directories from the working directory ${context.cwd} up to ${context.boundaryWords()}`,
    }
    const globals = context.options.globalFiles ?? names.map((name) => join(globalDir, name))
    const entries: PlannedEntry[] = []
    for (const path of globals) {
      if (!(await isFile(context, path))) continue
      if (context.options.globalFiles === undefined && !homeName(context, basename(path))) {
        withholdHomeName(context, path)
        continue
      }
      const entry = await load(context, path, 'global', dirname(path))
      if (entry !== undefined) entries.push(entry)
    }
    const project: string[] = []
    for (const dir of dirs) {
      for (const name of names) {
        const path = join(dir, name)
        if (await isFile(context, path)) project.push(path)
      }
    }
    // Plain string order, as Gemini CLI sorts them: not root first, not nearest first.
    project.sort(byCodeUnit)
    for (const path of project) {
      const entry = await load(context, path, 'project', context.confinementFor(dirname(path))[0]!)
      if (entry !== undefined) entries.push(entry)
    }
    // Just-in-time context is read without imports inlined here (see on-demand.ts); trimmed as at start-up.
    // Gemini CLI's JIT walk (packages/core/src/utils/memoryDiscovery.ts `loadJitSubdirectoryMemory`,
    // `findUpwardGeminiFiles`, core 0.56.0-nightly) skips no dot-directory; it fires from read_file,
    // list_directory, write_file, replace and read_many_files, which refuse paths ignored by
    // `.gitignore` and `.geminiignore` (tools/read-file.ts; config/constants.ts
    // DEFAULT_FILE_FILTERING_OPTIONS: respectGitIgnore and respectGeminiIgnore true).
    if (context.cwd !== context.home)
      await nestedOnDemand(context, names, {
        shape: (text) => text.trim(),
        ignoreFiles: ['.gitignore', '.geminiignore'],
      })
    return { entries, cap: optionalCap(context) }
  },
}

/** Whether `name` may be read in `~/.gemini`: `GEMINI.md`, or a name the user chose (never one only a repository's settings add). */
function homeName(context: DiscoveryContext, name: string): boolean {
  return name === 'GEMINI.md' || (context.options.homeNames ?? []).includes(name)
}

/**
 * A file of `~/.gemini` that Gemini CLI reads only because the repository's
 * `.gemini/settings.json` names it (`context.fileName: ["oauth_creds.json"]`
 * would send the user's credentials): withheld, with a warning.
 */
function withholdHomeName(context: DiscoveryContext, path: string): void {
  const source = context.setting('context.fileName')?.source ?? 'context.fileName'
  const reason = `a name only the repository's settings add (${source}), and a repository never chooses what is read in your home directory`
  if (context.withhold({ path, code: 'repository-name', reason, when: 'start' }, true))
    context.report(
      'repository-name',
      `${context.display(path)}: ${reason}; it was not read (Gemini CLI would send it). Remove the name from the repository's settings, or add it to context.fileName in your own ~/.gemini/settings.json if you mean Gemini CLI to read it.`,
      path,
    )
}

/** Gemini CLI's handling of one file: imports inlined within `root`, then trimmed; blank files left out. */
async function load(
  context: DiscoveryContext,
  path: string,
  kind: 'global' | 'project',
  root: string,
): Promise<PlannedEntry | undefined> {
  const loaded = await loadFound(context, path, [root], kind)
  if (loaded === undefined) return undefined
  return plannedEntry(context, loaded, kind, {
    inline: (file) => inlineGeminiImports(context, file, root),
    shape: trimInlined,
    blank: {
      when: (text) => text.length === 0,
      reason: 'it is blank, and Gemini CLI leaves blank files out',
    },
  })
}
