import { dirname, join, resolve } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { ruleGlobs } from '../globs.js'
import { findImportLines } from '../imports.js'
import { nestedOnDemand } from '../on-demand.js'
import { firstPresent, type ModeRules, optionalCap, type PlannedEntry, plannedEntry } from '../plan.js'
import { isRefusal, type LoadedFile, loadFile, loadFound } from '../read.js'
import { fileRule, readRule } from './convention.js'

/** Amp's names, in the order it tries them in each directory (AGENT.md is the legacy name). */
const AMP_NAMES: readonly string[] = ['AGENTS.md', 'AGENT.md', 'CLAUDE.md']

/**
 * Globs of a mentioned file, as Amp reads them: relative to the project
 * root with an implicit `**\/` in front, unless they start with `/`, `./`,
 * `../` or `**\/`.
 */
export function ampGlobs(globs: readonly string[]): string[] {
  return globs.map((glob) => {
    if (glob.startsWith('./')) return glob.slice(2)
    if (glob.startsWith('/')) return glob.slice(1)
    if (glob.startsWith('**/') || glob.startsWith('../')) return glob
    return `**/${glob}`
  })
}

/**
 * `amp` mode: Amp, from its manual ("AGENTS.md", ampcode.com/manual#AGENTS.md). Rules:
 * - global: `~/.config/amp/AGENTS.md`;
 * - project walk from cwd up to the project root; per directory the first
 *   of `AGENTS.md`, `AGENT.md` (legacy), `CLAUDE.md` (fallback); order
 *   global, then outermost → cwd;
 * - below cwd, the same names when the agent reads a file under them: on demand;
 * - a file mentioned on a line of its own (`@doc/style.md`, relative to
 *   the mentioning file, confined to the root and the deny-list) is
 *   included after it; when its front matter has `globs` (implicitly
 *   prefixed with `**\/`), only while the agent works on a matching file:
 *   on demand; one level deep (glob mentions such as `@doc/*.md` are not
 *   expanded);
 * - no cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const ampMode: ModeRules = {
  async plan(context) {
    const dirs = dirsDown(context.root, context.cwd)
    context.candidates = AMP_NAMES
    context.walk = {
      dirs,
      description: `the directories from the working directory ${context.cwd} up to the project root ${context.root}`,
    }
    const entries: PlannedEntry[] = []
    // The user's file: ~/.config/amp/AGENTS.md (ampcode.com/manual#AGENTS.md).
    const globals = context.options.globalFiles ?? [join(context.home, '.config', 'amp', 'AGENTS.md')]
    for (const path of globals) {
      const loaded = await loadFound(context, path, [dirname(path)]).catch(() => undefined)
      if (loaded === undefined) continue
      context.activations.set(path, 'always')
      entries.push(
        await plannedEntry(context, loaded, 'global'),
        ...(await mentions(context, loaded, [dirname(path)])),
      )
    }
    // The manual: AGENTS.md in cwd and its parent directories (here up to the project root); AGENT.md is
    // the legacy name and CLAUDE.md the fallback, one file a directory.
    for (const dir of dirs) {
      const path = await firstPresent(context, dir, AMP_NAMES)
      if (path === undefined) continue
      const loaded = await loadFound(context, path, context.confinementFor(dir))
      if (loaded === undefined) continue
      context.activations.set(path, 'always')
      entries.push(
        await plannedEntry(context, loaded, 'project'),
        ...(await mentions(context, loaded, [context.root])),
      )
    }
    // The manual: files in subtrees are included when the agent reads a file under them.
    await nestedOnDemand(context, AMP_NAMES, { firstOnly: true })
    return { entries, cap: optionalCap(context) }
  },
}

async function mentions(
  context: DiscoveryContext,
  file: LoadedFile,
  roots: readonly string[],
): Promise<PlannedEntry[]> {
  if (!context.options.imports) return []
  const out: PlannedEntry[] = []
  // The manual: a file @-mentioned on a line of its own is included; `globs` front matter scopes it.
  for (const line of findImportLines(file.text)) {
    const path = resolve(dirname(file.path), line.target)
    const loaded = await loadFile(context, path, roots, context.denyList)
    if (isRefusal(loaded)) {
      context.report(
        'import-missing',
        `${context.display(file.path)} mentions @${line.target}, which Amp cannot include: it ${loaded.why}.`,
        path,
        'info',
      )
      continue
    }
    const rule = readRule(loaded.text, path)
    const globs = ruleGlobs(rule.data.globs, 'picomatch')
    if (globs.patterns.length > 0) {
      await fileRule(context, loaded, {
        activation: 'glob',
        globs: ampGlobs(globs.patterns),
        written: globs.written,
        base: context.root,
        text: rule.body,
        tool: 'Amp',
        because: 'globs:',
      })
      continue
    }
    context.activations.set(path, 'always')
    out.push(
      await plannedEntry(context, loaded, 'import', { note: `mentioned by ${context.display(file.path)}` }),
    )
  }
  return out
}
