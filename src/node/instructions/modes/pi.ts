import { dirname, join } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { firstPresent, type ModeRules, optionalCap, type PlannedEntry, plannedEntry } from '../plan.js'
import { isFile, loadFound } from '../read.js'

/** pi's names, in the order it tries them in each directory. */
const PI_NAMES: readonly string[] = ['AGENTS.md', 'AGENTS.MD', 'CLAUDE.md', 'CLAUDE.MD']

/**
 * `pi` mode: the pi coding agent as observed (ANCHORS, pi 0.73.1). Rules:
 * - global: the first of `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`, `CLAUDE.MD`
 *   in `~/.pi/agent` (`PI_CODING_AGENT_DIR` is not consulted: pass
 *   `globalFiles` instead);
 * - project walk from cwd up to the file-system root (`fsRoot`), ignoring
 *   git; a file already loaded as the global one is not loaded again;
 * - per directory the first of the same four names; one file per directory
 *   (`names` is ignored: pi's names are fixed);
 * - order: global, then outermost → cwd;
 * - no imports; no cap (an explicit `maxBytes` applies the nearest-first budget);
 * - `SYSTEM.md` replaces pi's base prompt and `APPEND_SYSTEM.md` is
 *   appended to it, each from `<cwd>/.pi/`, else `~/.pi/agent/` (the
 *   harness view carries them before the context files).
 */
export const piMode: ModeRules = {
  async plan(context) {
    const dirs = dirsDown(context.fsRoot, context.cwd)
    context.candidates = PI_NAMES
    context.walk = {
      dirs,
      description: `every directory from the working directory ${context.cwd} up to the file-system root ${context.fsRoot}, ignoring git`,
    }
    const entries: PlannedEntry[] = []
    const globals =
      context.options.globalFiles ??
      [await firstPresent(context, join(context.home, '.pi', 'agent'), PI_NAMES)].filter(
        (p) => p !== undefined,
      )
    for (const path of globals) {
      const loaded = await loadFound(context, path, [dirname(path)], 'global')
      if (loaded !== undefined) entries.push(await plannedEntry(context, loaded, 'global'))
    }
    const seen = new Set(entries.map((entry) => entry.path))
    for (const dir of dirs) {
      const path = await firstPresent(context, dir, PI_NAMES)
      if (path === undefined) continue
      // Already loaded as the global file, which is what explain says of it.
      if (seen.has(path)) continue
      const loaded = await loadFound(context, path, context.confinementFor(dir))
      if (loaded !== undefined) entries.push(await plannedEntry(context, loaded, 'project'))
    }
    await promptFiles(context)
    return { entries, cap: optionalCap(context) }
  },
}

/**
 * pi's `SYSTEM.md` (replaces its base prompt) and `APPEND_SYSTEM.md`
 * (appended to it): each from `<cwd>/.pi/`, else `~/.pi/agent/`
 * (pi-mono `core/resource-loader.ts`); its context files still follow.
 */
async function promptFiles(context: DiscoveryContext): Promise<void> {
  for (const [name, slot, what] of [
    ['SYSTEM.md', 'replace', "replaces pi's base prompt"],
    ['APPEND_SYSTEM.md', 'append', "is appended to pi's base prompt"],
  ] as const) {
    const project = join(context.cwd, '.pi', name)
    const user = join(context.home, '.pi', 'agent', name)
    for (const [path, roots] of [
      [project, [context.root]],
      [user, [dirname(user)]],
    ] as const) {
      if (!(await isFile(context, path))) continue
      const loaded = await loadFound(context, path, roots)
      if (loaded === undefined) continue
      context.promptFiles[slot] = { path, text: loaded.text }
      context.decide(path, {
        status: 'included',
        code: 'included',
        reason: `it ${what} (${name} in ${context.display(dirname(path))})`,
      })
      if (path === project && (await isFile(context, user)))
        context.skip(
          user,
          'name-lost',
          `${context.display(project)} is used instead: pi reads the project's ${name} first`,
        )
      break
    }
  }
}
