import { dirname, join } from 'node:path'
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
 * - global: each name in `~/.gemini`, in name order;
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
          : `the directories from the working directory ${context.cwd} up to the git root ${context.gitRoot}`,
    }
    const globals = context.options.globalFiles ?? names.map((name) => join(globalDir, name))
    const entries: PlannedEntry[] = []
    for (const path of globals) {
      if (!(await isFile(context, path))) continue
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
      const entry = await load(context, path, 'project', context.root)
      if (entry !== undefined) entries.push(entry)
    }
    // Just-in-time context is read without imports inlined here (see on-demand.ts); trimmed as at start-up.
    if (context.cwd !== context.home) await nestedOnDemand(context, names, { shape: (text) => text.trim() })
    return { entries, cap: optionalCap(context) }
  },
}

/** Gemini CLI's handling of one file: imports inlined within `root`, then trimmed; blank files left out. */
async function load(
  context: DiscoveryContext,
  path: string,
  kind: 'global' | 'project',
  root: string,
): Promise<PlannedEntry | undefined> {
  const loaded = await loadFound(context, path, [root])
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
