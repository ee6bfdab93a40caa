import { basename, dirname, isAbsolute, join, sep } from 'node:path'
import picomatch from 'picomatch/posix.js'
import { byCodeUnit } from '../../../registry/tool-order.js'
import { isInside } from '../../safe-read.js'
import type { DiscoveryContext } from '../context.js'
import { loadOnce, reportOnce } from '../expansion.js'
import { dirsDown } from '../git-root.js'
import { globMatcher, globProblem, globWalk } from '../glob-walk.js'
import type { InstructionsEntry } from '../harness-config/load.js'
import { type EntryShape, type PlannedEntry, plannedEntry } from '../plan.js'
import { importFailure, isRefusal } from '../read.js'

/** Files one glob may bring in; past this the rest are left out, with a diagnostic. */
const MATCH_LIMIT = 200

/**
 * opencode's config `instructions` (opencode 1.18.33 `session/instruction.ts`,
 * from its documentation and source): each entry is a path or a glob; `~/`
 * means the home directory; an absolute entry is matched in its own
 * directory; a relative one in every directory from cwd up to the git root
 * (`globUp`), nearest first. URLs are fetched by opencode and never here.
 * Matches already loaded are not loaded again. Sorted by path within one
 * entry (opencode keeps the file system's order, which is not stable).
 *
 * An entry from a project file is untrusted: its matches must lie inside
 * the project root. Entries from the user's own files and flags may also
 * reach the home directory. Either way the deny-list applies.
 */
export async function configInstructions(
  context: DiscoveryContext,
  loaded: ReadonlySet<string>,
  shape: EntryShape,
): Promise<PlannedEntry[]> {
  const entries: PlannedEntry[] = []
  const seen = new Set(loaded)
  for (const entry of context.settings.instructions) {
    if (/^https?:\/\//i.test(entry.pattern)) {
      context.report(
        'harness-config',
        `an instructions entry of ${entry.source} is a URL: opencode fetches it, sysprompt never fetches, so it is left out.`,
        undefined,
        'info',
      )
      continue
    }
    const roots = entry.project ? [context.root] : [context.root, context.home]
    for (const path of await matches(context, entry)) {
      if (seen.has(path)) continue
      seen.add(path)
      if (!roots.some((root) => isInside(root, path))) {
        context.report(
          'outside-root',
          `${context.display(path)} is listed by ${entry.source} but lies outside the project; it was not read.`,
          path,
        )
        context.skip(path, 'outside-root', `listed by ${entry.source}, but outside the project`)
        continue
      }
      const read = await loadOnce(context, path, roots, context.denyList)
      if (isRefusal(read)) {
        const { what } = importFailure(read, roots)
        context.report(
          'unreadable',
          `${context.display(path)} (from ${entry.source}) ${what}; it was skipped.`,
          path,
        )
        context.skip(path, read.failure, `listed by ${entry.source}, but it ${what}`)
        continue
      }
      const planned = await plannedEntry(context, read, 'project', shape)
      if (planned === undefined) continue
      planned.setBy = entry.source
      entries.push(planned)
    }
  }
  return entries
}

/** The files an entry names, in a stable order. */
async function matches(context: DiscoveryContext, entry: InstructionsEntry): Promise<string[]> {
  const pattern = entry.pattern.startsWith('~/') ? join(context.home, entry.pattern.slice(2)) : entry.pattern
  if (isAbsolute(pattern)) {
    const roots = entry.project ? [context.root] : [context.root, context.home]
    if (!roots.some((root) => isInside(root, dirname(pattern)))) {
      context.report(
        'outside-root',
        `an instructions entry of ${entry.source} points outside the project; it was not read.`,
      )
      return []
    }
    return glob(context, dirname(pattern), basename(pattern), entry)
  }
  const top = context.gitRoot ?? context.fsRoot
  const found: string[] = []
  for (const dir of dirsDown(top, context.cwd).reverse())
    found.push(...(await glob(context, dir, pattern, entry)))
  return found
}

/**
 * Files below `dir` whose `/`-separated path relative to it matches `pattern`
 * (no dot files, as opencode's glob: picomatch's default). The directories
 * are read through the walk every glob of this discovery shares, and a glob
 * past the bounds of `GLOB_LIMITS` is refused with a diagnostic.
 */
async function glob(
  context: DiscoveryContext,
  dir: string,
  pattern: string,
  entry: InstructionsEntry,
): Promise<string[]> {
  const posixPattern = pattern.split(sep).join('/')
  if (!picomatch.scan(posixPattern).isGlob) {
    const path = join(dir, posixPattern)
    const found = await context.fs.stat(path).catch(() => undefined)
    return found?.kind === 'file' ? [path] : []
  }
  const problem = globProblem(posixPattern)
  if (problem !== undefined) {
    reportOnce(
      context,
      'harness-config',
      `an instructions glob of ${entry.source}, ${JSON.stringify(posixPattern.slice(0, 80))}${posixPattern.length > 80 ? '…' : ''}, ${problem}; it was not matched. Write a simpler glob.`,
      undefined,
      'warning',
    )
    return []
  }
  const match = globMatcher(posixPattern)
  // Only a pattern with a `/` or a `**` reaches below `dir` (picomatch's `**.md` matches `a/b.md`).
  const deep = posixPattern.includes('/') || posixPattern.includes('**')
  const walk = globWalk(context)
  const candidates = deep ? await walk.filesBelow(dir) : await walk.filesIn(dir)
  const files = candidates.filter((rel) => match(rel)).map((rel) => join(dir, ...rel.split('/')))
  files.sort(byCodeUnit)
  if (files.length > MATCH_LIMIT) {
    context.report(
      'harness-config',
      `an instructions entry of ${entry.source} matches more than ${MATCH_LIMIT} files in ${context.display(dir)}; only the first ${MATCH_LIMIT} were read. Narrow the glob.`,
      undefined,
      'info',
    )
    return files.slice(0, MATCH_LIMIT)
  }
  return files
}
