import { join, relative, sep } from 'node:path'
import { byCodeUnit } from '../../registry/tool-order.js'
import type { DirEntry } from '../adapters.js'
import { listDir } from '../fs-memo.js'
import { isInside } from '../safe-read.js'
import type { DiscoveryContext } from './context.js'
import type { LateBoundFile, OnDemandFile, OnDemandTrigger } from './discovery-results.js'
import { GLOB_LIMITS } from './glob-walk.js'
import { globsTest, type PathTest } from './globs.js'
import { IgnoreFiles, type LeftOut, NEVER_WALKED, VCS_DIRS } from './ignore-files.js'
import type { OnDemandCandidate } from './loaded.js'
import { isFile, loadFound } from './read.js'

/**
 * How many directories below cwd a harness mode looks at for files it
 * would load on demand. A monorepo has a few thousand; past this the walk
 * stops and says so, so a home directory as cwd cannot stall discovery.
 */
export const ON_DEMAND_DIR_LIMIT = 5000

export type { OnDemandCandidate } from './loaded.js'

/** How a nested walk treats dot-directories and ignore files, per harness (see each mode for its source). */
export interface NestedWalkOptions {
  /**
   * The ignore files the harness honours for it (`.gitignore`, Gemini
   * CLI's `.geminiignore`); `[]` when it honours none. A directory an
   * ignore rule matches is left out, with its rule kept for `explain`.
   */
  ignoreFiles?: readonly string[]
  /**
   * A harness's own fixed skip list, where it has one: whether it skips
   * every dot-directory, the directory names it skips, and the words that
   * name its source (for `explain`).
   */
  fixedSkip?: { dot: boolean; names: ReadonlySet<string>; words: string }
}

/** The ignore files most harnesses honour when they look below cwd. */
export const DEFAULT_IGNORE_FILES: readonly string[] = ['.gitignore']

/**
 * Directories strictly below `dir`, breadth first, sorted by name within
 * each level. Dot-directories (`.github/`, `.devcontainer/`) are walked,
 * as the harnesses walk them; left out are VCS metadata (`.git`, `.hg`,
 * `.svn`), `node_modules`, directories on the deny-list and directories
 * the harness's ignore files ignore (each recorded in
 * `context.leftOut` with its reason). Links to directories are not
 * followed, and the walk stops (with a diagnostic) after
 * `ON_DEMAND_DIR_LIMIT` directories or `GLOB_LIMITS.depth` levels.
 */
export async function dirsBelow(
  context: DiscoveryContext,
  dir: string,
  options: NestedWalkOptions = {},
): Promise<string[]> {
  const ignores = new IgnoreFiles(context, options.ignoreFiles ?? DEFAULT_IGNORE_FILES)
  await ignores.prime(dir)
  const found: string[] = []
  let level = [dir]
  for (let depth = 0; level.length > 0 && depth < GLOB_LIMITS.depth; depth++) {
    const next: string[] = []
    for (const parent of level) {
      let entries: DirEntry[]
      try {
        entries = await listDir(context.fs, parent)
      } catch {
        continue
      }
      if (parent !== dir)
        await ignores.enter(parent, new Set(entries.filter((e) => e.isFile()).map((e) => e.name)))
      const names = entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort(byCodeUnit)
      for (const name of names) {
        const child = join(parent, name)
        const left = leftOutWhy(context, ignores, child, name, options.fixedSkip)
        if (left !== undefined) {
          context.leftOut.set(child, left)
          continue
        }
        if (found.length >= ON_DEMAND_DIR_LIMIT) {
          context.report(
            'on-demand-limit',
            `more than ${ON_DEMAND_DIR_LIMIT} directories lie below ${context.display(dir)}; files loaded on demand were looked for in the first ${ON_DEMAND_DIR_LIMIT} only. Start from a smaller directory.`,
            dir,
            'info',
          )
          return found
        }
        found.push(child)
        next.push(child)
      }
    }
    level = next
  }
  return found
}

/** Why the walk leaves the directory `child` out, or `undefined` when it walks it. */
function leftOutWhy(
  context: DiscoveryContext,
  ignores: IgnoreFiles,
  child: string,
  name: string,
  fixedSkip: NestedWalkOptions['fixedSkip'],
): LeftOut | undefined {
  if (VCS_DIRS.has(name))
    return { kind: 'never', words: `${name} is version-control metadata, never read for instructions` }
  if (NEVER_WALKED.has(name))
    return { kind: 'never', words: `${name} directories are never walked for instructions` }
  if (fixedSkip !== undefined && ((fixedSkip.dot && name.startsWith('.')) || fixedSkip.names.has(name)))
    return { kind: 'never', words: fixedSkip.words }
  const rel = relative(context.root, child).split(sep).join('/')
  const denied = isInside(context.root, child) ? context.denyList.match(rel) : undefined
  if (denied !== undefined) return { kind: 'never', words: `${name} is on the deny-list (${denied})` }
  const rule = ignores.ruleFor(child)
  if (rule !== undefined) return { kind: 'ignored', words: `ignored by ${rule}` }
  return undefined
}

/** The sentence `inspect` and `explain` print for a trigger. */
export function whenWords(context: DiscoveryContext, trigger: OnDemandTrigger): string {
  if (trigger.kind === 'under') return `when the agent works under ${context.display(trigger.dir)}`
  const base = trigger.base === context.root ? '' : ` (relative to ${context.display(trigger.base)})`
  return `when the agent reads a file matching ${trigger.written ?? trigger.globs.join(', ')}${base}`
}

/** Compiled glob tests, one per trigger. */
const TESTS = new WeakMap<OnDemandTrigger, PathTest>()

/** Whether the trigger fires for an absolute working path (globs matched as the trigger's tool matches them). */
export function fires(trigger: OnDemandTrigger, path: string): boolean {
  if (trigger.kind === 'under') return isInside(trigger.dir, path) && path !== trigger.dir
  if (!isInside(trigger.base, path)) return false
  let test = TESTS.get(trigger)
  if (test === undefined) {
    test = globsTest(trigger.syntax ?? 'picomatch', trigger.globs)
    TESTS.set(trigger, test)
  }
  return test(relative(trigger.base, path).split(sep).join('/'))
}

/**
 * Turns the mode's on-demand candidates into the `onDemand` list (with
 * tokens) and, for the working paths given, the `lateBound` entries: what
 * the harness adds to a tool result when the agent reads or edits that
 * path, in the order the candidates were found. Every candidate gets an
 * explanation: on demand, or late-bound for the paths that load it.
 */
export function resolveOnDemand(
  context: DiscoveryContext,
  candidates: readonly OnDemandCandidate[],
): { onDemand: OnDemandFile[]; lateBound: LateBoundFile[] } {
  const onDemand: OnDemandFile[] = []
  const lateBound: LateBoundFile[] = []
  const seen = new Set<string>()
  for (const { loaded, trigger, text } of candidates) {
    if (seen.has(loaded.path)) continue
    seen.add(loaded.path)
    const tokens = context.count(text)
    const when = whenWords(context, trigger)
    const loadedFor = context.options.paths.filter((path) => fires(trigger, path))
    const activation = context.activations.get(loaded.path)
    onDemand.push({
      path: loaded.path,
      when,
      trigger,
      tokens,
      bytes: loaded.bytes,
      hash: loaded.hash,
      loadedFor,
      ...(activation && { activation }),
    })
    if (loadedFor.length === 0) {
      context.decide(loaded.path, {
        status: 'on-demand',
        code: 'on-demand',
        reason: `on demand, ${when}: the harness adds it to a tool result then, never to the cached prefix (${context.options.paths.length === 0 ? 'pass --path to see it loaded' : 'no working path given matches'})`,
      })
      continue
    }
    lateBound.push({ path: loaded.path, text, tokens, bytes: loaded.bytes, hash: loaded.hash, loadedFor })
    context.decide(loaded.path, {
      status: 'late-bound',
      code: 'late-bound',
      reason: `loaded late, with the tool result for ${loadedFor.map((p) => context.display(p)).join(', ')} (${when}); never in the cached prefix`,
    })
  }
  return { onDemand, lateBound }
}

/**
 * Finds the instruction files in the directories below cwd that a harness
 * loads when the agent works in them, and records each as on demand (with
 * the trigger "under its directory"): every one of `names` present in a
 * directory, or only the first when `firstOnly`. `shape` turns the text
 * read into the text the harness delivers.
 */
export async function nestedOnDemand(
  context: DiscoveryContext,
  names: readonly string[],
  options: NestedWalkOptions & { firstOnly?: boolean; shape?: (text: string) => string } = {},
): Promise<void> {
  for (const dir of await dirsBelow(context, context.cwd, options)) {
    for (const name of names) {
      const path = join(dir, name)
      if (!(await isFile(context, path))) continue
      const trigger: OnDemandTrigger = { kind: 'under', dir }
      const loadedFor = context.options.paths.filter((p) => fires(trigger, p))
      const loaded = await loadFound(context, path, [context.root], { loadedFor })
      if (loaded === undefined) {
        // A withheld file is still the one the harness picks in its directory.
        if (options.firstOnly && context.withheld.has(path)) break
        continue
      }
      const text = options.shape === undefined ? loaded.text : options.shape(loaded.text)
      if (text.trim().length > 0) context.onDemand.push({ loaded, trigger, text })
      if (options.firstOnly) break
    }
  }
}
