import { basename, join } from 'node:path'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import { isFile } from '../read.js'
import { alwaysFile, pushAll } from './convention.js'

/**
 * `junie` mode: JetBrains Junie, from its documentation ("Guidelines",
 * junie.jetbrains.com/docs/guidelines-and-memory.html). Rules:
 * - one file at the project root: `.junie/guidelines.md`, else
 *   `AGENTS.md`; a path configured in the IDE is passed as `names` (the
 *   first that exists, relative to the root, wins);
 * - no front matter, no imports, nothing on demand;
 * - no cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const junieMode: ModeRules = {
  async plan(context) {
    const root = context.root
    // "By default, Junie looks for agent guidelines at .junie/guidelines.md in the root folder of the
    // configured project" (jetbrains.com/help/junie/customize-guidelines.html); AGENTS.md is the other
    // file it supports, tried next; a "Guidelines path" set in its settings comes in as `names`.
    const names = context.options.names ?? [join('.junie', 'guidelines.md'), 'AGENTS.md']
    context.candidates = names.map((name) => basename(name))
    context.walk = { dirs: [root, join(root, '.junie')], description: `the project root ${root}` }
    const entries: PlannedEntry[] = []
    for (const name of names) {
      const path = join(root, name)
      if (!(await isFile(context, path))) continue
      if (entries.length > 0) {
        context.skip(
          path,
          'name-lost',
          `Junie reads one guidelines file: ${context.display(entries[0]!.path)} won`,
        )
        continue
      }
      pushAll(entries, await alwaysFile(context, path, root))
    }
    return { entries, cap: optionalCap(context) }
  },
}
