import { dirname, join } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { nestedOnDemand } from '../on-demand.js'
import { type EntryShape, type ModeRules, optionalCap, type PlannedEntry, plannedEntry } from '../plan.js'
import { isFile, loadFound } from '../read.js'
import { configInstructions } from './opencode-instructions.js'

/** opencode's project names: the first one found anywhere up the walk is the only one read. */
const OPENCODE_NAMES: readonly string[] = ['AGENTS.md', 'CLAUDE.md', 'CONTEXT.md']

/** opencode leaves out empty files (a file of only blank lines still counts). */
const SKIP_EMPTY: EntryShape = {
  blank: { when: (text) => text.length === 0, reason: 'it is empty, and opencode leaves empty files out' },
}

/**
 * `opencode` mode: opencode as observed (ANCHORS, opencode 1.18.33). Rules:
 * - global: `~/.config/opencode/AGENTS.md`, else `~/.claude/CLAUDE.md`
 *   (`XDG_CONFIG_HOME` and `OPENCODE_CONFIG_DIR` are not consulted: pass
 *   `globalFiles` instead);
 * - project walk from cwd up to the git root (or the `root` option);
 *   outside a git repository, up to the file-system root (`fsRoot`);
 * - names `AGENTS.md`, `CLAUDE.md`, `CONTEXT.md`: the first name found
 *   anywhere up the walk is chosen for the whole walk, then every file of
 *   that name is read; the other names are ignored (`names` too);
 * - blank files add nothing to the prompt and are skipped;
 * - order: global, then **nearest first** (cwd → root);
 * - below cwd, the first of the names in each directory is loaded when
 *   the agent reads a file under it (lazy): on demand;
 * - then the files of its config `instructions` (paths and globs from
 *   `~/.config/opencode/opencode.json(c)` and each `opencode.json(c)` up
 *   the walk, or `harnessConfig`; see `opencode-instructions.ts`);
 * - no imports; no cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const opencodeMode: ModeRules = {
  async plan(context) {
    const top = context.gitRoot ?? context.fsRoot
    const upward = dirsDown(top, context.cwd).reverse()
    context.candidates = OPENCODE_NAMES
    context.walk = {
      dirs: upward,
      description:
        context.gitRoot === null
          ? `every directory from the working directory ${context.cwd} up to the file-system root ${context.fsRoot} (there is no git root)`
          : `the directories from the working directory ${context.cwd} up to ${context.boundaryWords()}`,
    }
    const entries: PlannedEntry[] = []
    const global = await globalEntry(context)
    if (global !== undefined) entries.push(global)
    let chosen: string | undefined
    for (const name of OPENCODE_NAMES) {
      const found: string[] = []
      for (const dir of upward) {
        const path = join(dir, name)
        if (await isFile(context, path)) found.push(path)
      }
      if (found.length === 0) continue
      if (chosen !== undefined) {
        for (const path of found)
          context.skip(
            path,
            'name-not-chosen',
            `opencode reads only ${chosen} files: the first of ${OPENCODE_NAMES.join(', ')} found up the walk`,
          )
        continue
      }
      chosen = name
      for (const path of found) {
        // Already loaded as the global file, which is what explain says of it.
        if (path === global?.path) continue
        const loaded = await loadFound(context, path, context.confinementFor(dirname(path)))
        if (loaded === undefined) continue
        const entry = await plannedEntry(context, loaded, 'project', SKIP_EMPTY)
        if (entry !== undefined) entries.push(entry)
      }
    }
    entries.push(...(await configInstructions(context, new Set(entries.map((e) => e.path)), SKIP_EMPTY)))
    // Lazy loading below cwd exists only from the version its profile names (a harness mode always has one).
    if (context.profile!.behaviour.lazyAgentsMd)
      // opencode's `resolve` (packages/opencode/src/session/instruction.ts @00b964bd) walks up from
      // the file the read tool read, with no dot-directory exclusion and no ignore-file check.
      await nestedOnDemand(context, OPENCODE_NAMES, { firstOnly: true, ignoreFiles: [] })
    return { entries, cap: optionalCap(context) }
  },
}

async function globalEntry(context: DiscoveryContext): Promise<PlannedEntry | undefined> {
  const paths = context.options.globalFiles ?? [
    join(context.home, '.config', 'opencode', 'AGENTS.md'),
    join(context.home, '.claude', 'CLAUDE.md'),
  ]
  const present: string[] = []
  for (const path of paths) if (await isFile(context, path)) present.push(path)
  // opencode takes the first global file that exists, even an empty one.
  const [path, ...later] = present
  if (path === undefined) return undefined
  const loaded = await loadFound(context, path, [dirname(path)], 'global')
  if (loaded === undefined) return undefined
  for (const other of later)
    context.skip(
      other,
      'name-lost',
      `${context.display(path)} is opencode's global file: only the first that exists is used`,
    )
  return plannedEntry(context, loaded, 'global', SKIP_EMPTY)
}
