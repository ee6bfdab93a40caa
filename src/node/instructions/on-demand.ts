import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import picomatch from 'picomatch/posix.js'
import { isInside } from '../safe-read.js'
import type { DiscoveryContext } from './context.js'
import { isFile, type LoadedFile, loadFound } from './read.js'
import type { LateBoundFile, OnDemandFile, OnDemandTrigger } from './types.js'

/**
 * How many directories below cwd a harness mode looks at for files it
 * would load on demand. A monorepo has a few thousand; past this the walk
 * stops and says so, so a home directory as cwd cannot stall discovery.
 */
export const ON_DEMAND_DIR_LIMIT = 5000

/** Directories no harness looks into for instruction files (and that are huge when present). */
const NEVER_WALKED: ReadonlySet<string> = new Set(['.git', 'node_modules'])

/** A file a mode found that the harness loads only when the agent works near it. */
export interface OnDemandCandidate {
  loaded: LoadedFile
  trigger: OnDemandTrigger
  /** The text the harness delivers for it (front matter removed, trimmed, … as the mode sends it). */
  text: string
}

/**
 * Directories strictly below `dir`, breadth first, sorted by name within
 * each level: hidden directories, `.git` and `node_modules` are left out,
 * links to directories are not followed, and the walk stops (with a
 * diagnostic) after `ON_DEMAND_DIR_LIMIT` directories.
 */
export async function dirsBelow(context: DiscoveryContext, dir: string): Promise<string[]> {
  const found: string[] = []
  let level = [dir]
  while (level.length > 0) {
    const next: string[] = []
    for (const parent of level) {
      let entries: Dirent[]
      try {
        entries = await readdir(parent, { withFileTypes: true })
      } catch {
        continue
      }
      const names = entries
        .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NEVER_WALKED.has(e.name))
        .map((e) => e.name)
        .sort()
      for (const name of names) {
        if (found.length >= ON_DEMAND_DIR_LIMIT) {
          context.report(
            'on-demand-limit',
            `more than ${ON_DEMAND_DIR_LIMIT} directories lie below ${context.display(dir)}; files loaded on demand were looked for in the first ${ON_DEMAND_DIR_LIMIT} only. Start from a smaller directory.`,
            dir,
            'info',
          )
          return found
        }
        const child = join(parent, name)
        found.push(child)
        next.push(child)
      }
    }
    level = next
  }
  return found
}

/** The sentence `inspect` and `explain` print for a trigger. */
export function whenWords(context: DiscoveryContext, trigger: OnDemandTrigger): string {
  if (trigger.kind === 'under') return `when the agent works under ${context.display(trigger.dir)}`
  const base = trigger.base === context.root ? '' : ` (relative to ${context.display(trigger.base)})`
  return `when the agent reads a file matching ${trigger.globs.join(', ')}${base}`
}

/** Whether the trigger fires for an absolute working path. */
export function fires(trigger: OnDemandTrigger, path: string): boolean {
  if (trigger.kind === 'under') return isInside(trigger.dir, path) && path !== trigger.dir
  if (!isInside(trigger.base, path)) return false
  const rel = relative(trigger.base, path).split(sep).join('/')
  return trigger.globs.some((glob) => picomatch(glob.replace(/^\.?\//, ''), { dot: true })(rel))
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
  options: { firstOnly?: boolean; shape?: (text: string) => string } = {},
): Promise<void> {
  for (const dir of await dirsBelow(context, context.cwd)) {
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
