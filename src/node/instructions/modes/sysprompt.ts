import { basename, dirname, isAbsolute, join } from 'node:path'
import { DEFAULT_MAX_BYTES } from '../budget.js'
import type { DiscoveryContext } from '../context.js'
import type { InstructionFile } from '../discovery-results.js'
import { dirsDown } from '../git-root.js'
import { inlineImports } from '../imports.js'
import {
  type EntryShape,
  firstPresent,
  type ModePlan,
  type ModeRules,
  type PlannedEntry,
  plannedEntry,
  uniqueNames,
} from '../plan.js'
import { isFile, loadFound } from '../read.js'

/** The file that wins in its directory and replaces what that directory's subtree inherited. */
export const OVERRIDE_NAME = 'AGENTS.override.md'

/** Names read when none are configured. */
export const DEFAULT_NAMES: readonly string[] = ['AGENTS.md']

/**
 * Where sysprompt's global instruction file lives: `$XDG_CONFIG_HOME/sysprompt`
 * (the user layer of SPEC §6), else `~/.config/sysprompt`. An explicit
 * `home` always wins over `XDG_CONFIG_HOME`, so a test's empty home stays empty.
 * A relative `XDG_CONFIG_HOME` is ignored (the XDG spec calls it invalid), so
 * `~/.config` is used, as the fragment layers do; before, no global file was
 * found at all.
 */
export function syspromptGlobalDir(context: DiscoveryContext): string {
  const xdg = context.homeGiven ? undefined : process.env.XDG_CONFIG_HOME
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(context.home, '.config'), 'sysprompt')
}

/**
 * sysprompt mode, the default (SPEC §6). Rules:
 * - global file first of all: the first of `AGENTS.override.md`, then `names`,
 *   present in `syspromptGlobalDir` (or the `globalFiles` option instead);
 * - project walk from the root (the `root` option, else the nearest `.git`
 *   ancestor, else cwd) down to cwd, root first, most specific last;
 * - one file per directory: `AGENTS.override.md` if present, else the first
 *   of `names` (default `['AGENTS.md']`, e.g. `['AGENTS.md', 'CLAUDE.md']`);
 * - an `AGENTS.override.md` also replaces the files inherited from ancestor
 *   directories for its subtree (the global file stays);
 * - `@relative/path.md` lines are inlined (see `imports.ts`): depth 5,
 *   cycles reported and not followed, confined to the root (global file:
 *   its own directory);
 * - cap: the visible nearest-first budget, `maxBytes` default 32 KiB.
 */
export const syspromptMode: ModeRules = {
  async plan(context) {
    const names = uniqueNames([OVERRIDE_NAME, ...(context.options.names ?? DEFAULT_NAMES)])
    const dirs = dirsDown(context.root, context.cwd)
    context.candidates = names
    context.walk = {
      dirs,
      description: `the directories from the project root ${context.root} down to the working directory ${context.cwd}`,
    }
    const entries: PlannedEntry[] = [...(await globalEntries(context, names))]
    let project: PlannedEntry[] = []
    for (const dir of dirs) {
      const path = await firstPresent(context, dir, names)
      if (path === undefined) continue
      if (basename(path) === OVERRIDE_NAME) {
        for (const shadowed of project) shadow(context, shadowed.file, path)
        project = []
      }
      const loaded = await loadFound(context, path, [context.root])
      if (loaded === undefined) continue
      project.push(await plannedEntry(context, loaded, 'project', inliningWithin(context, [context.root])))
    }
    entries.push(...project)
    return {
      entries,
      cap: { kind: 'nearest-first', maxBytes: context.options.maxBytes ?? DEFAULT_MAX_BYTES },
    } satisfies ModePlan
  },
}

async function globalEntries(context: DiscoveryContext, names: readonly string[]): Promise<PlannedEntry[]> {
  let paths: string[]
  if (context.options.globalFiles !== undefined) {
    paths = [...context.options.globalFiles]
  } else {
    const dir = syspromptGlobalDir(context)
    const found: string[] = []
    for (const name of names) {
      const path = join(dir, name)
      if (!(await isFile(context, path))) continue
      if (found.length === 0) found.push(path)
      else
        context.skip(
          path,
          'name-lost',
          `${context.display(found[0]!)} is the global file: the first of ${names.join(', ')}`,
        )
    }
    paths = found
  }
  const entries: PlannedEntry[] = []
  for (const path of paths) {
    const roots = [dirname(path)]
    const loaded = await loadFound(context, path, roots)
    if (loaded !== undefined)
      entries.push(await plannedEntry(context, loaded, 'global', inliningWithin(context, roots)))
  }
  return entries
}

/** sysprompt's entries: `@` lines inlined, confined to `roots`; a blank file is kept (it costs nothing). */
function inliningWithin(
  context: DiscoveryContext,
  roots: readonly string[],
): EntryShape & { blank?: undefined } {
  return { inline: (loaded) => inlineImports(context, loaded, roots) }
}

/** Marks a file an override replaced, and the files it imported, as shadowed. */
function shadow(context: DiscoveryContext, file: InstructionFile, override: string): void {
  context.skip(
    file.path,
    'shadowed-by-override',
    `${context.display(override)} replaces the instructions its directory inherits, so this file is not loaded for ${context.display(context.cwd)}`,
  )
  for (const imported of file.imports ?? []) shadow(context, imported, override)
}
