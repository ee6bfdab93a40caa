import { join } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import { ruleGlobs } from '../globs.js'
import { dirsBelow } from '../on-demand.js'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import { isFile } from '../read.js'
import { alwaysFile, fileRule, listRules, loadRuleFile, pushAll, readRule } from './convention.js'

/** The subdirectories of `.clinerules/` that Cline never reads as rules. */
export const NOT_RULES: ReadonlySet<string> = new Set(['workflows', 'hooks', 'skills'])

/** The numeric prefix of a rule's name (`01-style.md` → 1); names without one sort after. */
function prefix(path: string): number {
  const match = /^(\d+)/.exec(path.slice(path.lastIndexOf('/') + 1))
  return match === null ? Number.POSITIVE_INFINITY : Number(match[1])
}

/**
 * `cline` mode: Cline, from its documentation ("Cline Rules",
 * docs.cline.bot/features/cline-rules). The workspace is the project root. Rules:
 * - global: every `.md` in `~/Documents/Cline/Rules`, then the shared
 *   `~/.agents/AGENTS.md`; workspace rules come after them and win;
 * - workspace: every `.md` in `.clinerules/` and its subdirectories
 *   (numeric prefixes order them, then by name) except `workflows/`,
 *   `hooks/` and `skills/`, which hold workflows, hooks and skills, not
 *   rules (Cline's `getLocalClineRules` excludes exactly those three,
 *   `cline-rules.ts` up to 3.89.2; the SDK-based 4.x reads only the
 *   top level), or a single `.clinerules` file; then `.cline/rules/*.md`;
 * - a rule whose front matter has `paths:` (a list of globs, relative to
 *   the workspace) is attached when the agent works on a matching file: on
 *   demand; the others load at start, without their front matter;
 * - `AGENTS.md` at the root, then in subdirectories (recursively, breadth
 *   first), at start;
 * - other tools' files (`.cursorrules`, `.windsurfrules`) only when there
 *   is no `.clinerules` at all;
 * - no cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const clineMode: ModeRules = {
  async plan(context) {
    const root = context.root
    context.candidates = ['.clinerules', 'AGENTS.md', '.cursorrules', '.windsurfrules']
    context.walk = {
      dirs: [root],
      description: `the workspace root ${root} and, for AGENTS.md, every directory below it`,
    }
    const entries: PlannedEntry[] = []
    const globals = context.options.globalFiles ?? [
      ...(await listRules(join(context.home, 'Documents', 'Cline', 'Rules'), (n) => n.endsWith('.md'), false))
        .files,
      join(context.home, '.agents', 'AGENTS.md'),
    ]
    for (const path of globals) pushAll(entries, await rule(context, path, 'global'))
    const clinerules = join(root, '.clinerules')
    const stat = await context.fs.stat(clinerules).catch(() => undefined)
    if (stat?.kind === 'directory') {
      const listed = await listRules(clinerules, (n) => n.endsWith('.md'), true, NOT_RULES)
      const ordered = [...listed.files].sort((a, b) => prefix(a) - prefix(b))
      for (const path of ordered) pushAll(entries, await rule(context, path))
    } else {
      // A single `.clinerules` file; `rule` reads only a file, so nothing when there is none.
      pushAll(entries, await rule(context, clinerules))
    }
    for (const path of (await listRules(join(root, '.cline', 'rules'), (n) => n.endsWith('.md'), false))
      .files)
      pushAll(entries, await rule(context, path))
    // Nested AGENTS.md files, only when the root has one: Cline ≤ 3.89.2
    // `external-rules.ts` `findAgentsMdFiles` lists files with
    // `services/glob/list-files.ts` `listFiles`, which skips dot-directories,
    // DEFAULT_IGNORE_DIRECTORIES and what `.gitignore` ignores.
    if (await isFile(context, join(root, 'AGENTS.md')))
      for (const dir of [root, ...(await dirsBelow(context, root, CLINE_LIST_FILES))])
        pushAll(entries, await alwaysFile(context, join(dir, 'AGENTS.md'), dir))
    const others = ['.cursorrules', '.windsurfrules'].map((name) => join(root, name))
    for (const path of others) {
      if (stat === undefined) pushAll(entries, await alwaysFile(context, path, root))
      else if (await isFile(context, path))
        context.skip(
          path,
          'fallback-unused',
          'Cline reads other tools\u2019 rule files only when there is no .clinerules',
        )
    }
    return { entries, cap: optionalCap(context) }
  },
}

/**
 * Cline's file listing (v3.89.2 `apps/vscode/src/services/glob/list-files.ts`):
 * every dot-directory and the names of DEFAULT_IGNORE_DIRECTORIES (its
 * `target/dependency` and `build/dependencies` are two-level paths, left
 * to `.gitignore` here), and `.gitignore`, read as the walk goes down.
 */
const CLINE_LIST_FILES = {
  ignoreFiles: ['.gitignore'],
  fixedSkip: {
    dot: true,
    names: new Set([
      'node_modules',
      '__pycache__',
      'env',
      'venv',
      'dist',
      'out',
      'bundle',
      'vendor',
      'tmp',
      'temp',
      'deps',
      'Pods',
    ]),
    words:
      "Cline's file listing (list-files.ts) skips dot-directories and node_modules, __pycache__, env, venv, dist, out, bundle, vendor, tmp, temp, deps and Pods",
  },
}

/** A rule file, a workspace rule unless `kind` says global; confined to the root, or to its own directory outside it. */
async function rule(
  context: DiscoveryContext,
  path: string,
  kind?: 'global',
): Promise<PlannedEntry | undefined> {
  const loaded = await loadRuleFile(context, path, join(path, '..'))
  if (loaded === undefined) return undefined
  const read = readRule(loaded.text, path)
  const { patterns: globs, written } = ruleGlobs(read.data.paths, 'picomatch')
  return fileRule(
    context,
    loaded,
    {
      activation: globs.length > 0 ? 'glob' : 'always',
      globs,
      written,
      base: context.root,
      text: read.body,
      tool: 'Cline',
      because: globs.length > 0 ? 'paths:' : 'it has no paths:',
    },
    kind,
  )
}
