import { basename, join } from 'node:path'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import { isFile } from '../read.js'
import { alwaysFile, pushAll } from './convention.js'

/**
 * Zed's list: the first of these at the worktree root is its one rules file
 * (zed.dev/docs/ai/rules, "`.rules` files": "the first file which matches in
 * this list will be used"; the list there is this one, in this order).
 */
export const ZED_NAMES: readonly string[] = [
  '.rules',
  '.cursorrules',
  '.windsurfrules',
  '.clinerules',
  '.github/copilot-instructions.md',
  'AGENT.md',
  'AGENTS.md',
  'CLAUDE.md',
  'GEMINI.md',
]

/**
 * `zed` mode: Zed's agent, from its documentation ("Rules",
 * zed.dev/docs/ai/rules). Rules:
 * - the first file of `.rules`, `.cursorrules`, `.windsurfrules`,
 *   `.clinerules`, `.github/copilot-instructions.md`, `AGENT.md`,
 *   `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` that exists at the worktree root
 *   (the project root) is included at start; one file, the others are not
 *   read; a `.clinerules` directory is not a file and does not count;
 * - no front matter, no imports, nothing on demand; the rules library lives
 *   in Zed's settings, not in the repository;
 * - no cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const zedMode: ModeRules = {
  async plan(context) {
    const root = context.root
    context.candidates = ZED_NAMES.map((name) => basename(name))
    context.walk = { dirs: [root, join(root, '.github')], description: `the worktree root ${root}` }
    const entries: PlannedEntry[] = []
    let chosen: string | undefined
    // One file: the first name of the list that exists at the worktree root (the page above). The preview
    // documentation (zed.dev/docs/preview/ai/instructions) adds a personal ~/.config/zed/AGENTS.md, not in a release yet.
    for (const name of ZED_NAMES) {
      const path = join(root, name)
      if (!(await isFile(context, path))) continue
      if (chosen !== undefined) {
        context.skip(path, 'name-lost', `Zed reads one rules file, the first of its list: ${chosen} won`)
        continue
      }
      chosen = name
      pushAll(entries, await alwaysFile(context, path, root))
    }
    return { entries, cap: optionalCap(context) }
  },
}
