import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import picomatch from 'picomatch/posix.js'
import { byCodeUnit } from '../../registry/tool-order.js'
import type { DiscoveryContext } from './context.js'

/**
 * Bounds on the glob work one discovery does for a repository's globs
 * (opencode's `instructions`): a glob is repository input, and a long one,
 * one with many brace groups, or one with several `**` or `*` in a segment
 * makes picomatch's expression backtrack (three `**` against a deep path
 * took seconds); the walk visits at most `dirs` directories in all, at
 * most `depth` below where it starts, shared by every glob.
 */
export const GLOB_LIMITS = {
  /** Characters of one glob. */
  length: 256,
  /** `{…}` groups in one glob (picomatch matches them as alternatives, never expanding them). */
  braces: 8,
  /** `**` segments in one glob. */
  globstars: 2,
  /** `*` in one path segment other than `**`. */
  starsPerSegment: 2,
  /** Directories read, in all, per discovery. */
  dirs: 5000,
  /** Levels below the directory a glob starts in. */
  depth: 32,
} as const

/** Why `pattern` is refused, in words (`has 3 ** segments; at most 2`), or `undefined` when it is within the bounds. */
export function globProblem(pattern: string): string | undefined {
  const L = GLOB_LIMITS
  if (pattern.length === 0) return 'is empty'
  if (pattern.length > L.length) return `is ${pattern.length} characters long; at most ${L.length}`
  const braces = pattern.split('{').length - 1
  if (braces > L.braces) return `has ${braces} brace groups; at most ${L.braces}`
  const segments = pattern.split('/')
  const globstars = segments.filter((s) => s === '**').length
  if (globstars > L.globstars) return `has ${globstars} ** segments; at most ${L.globstars}`
  for (const segment of segments) {
    if (segment === '**') continue
    const stars = segment.split('*').length - 1
    if (stars > L.starsPerSegment)
      return `has ${stars} * in the segment ${segment}; at most ${L.starsPerSegment} a segment`
  }
  return undefined
}

/**
 * A matcher for a glob within the bounds: picomatch, without extglobs
 * (`+(a|b)` is text, as in the Bun glob opencode uses), no dot files.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  return picomatch(pattern, { noextglob: true })
}

/** Directories no harness looks into for instruction files (and that are huge when present). */
const NEVER_WALKED: ReadonlySet<string> = new Set(['.git', 'node_modules'])

interface Listing {
  files: string[]
  dirs: string[]
}

/**
 * The directory walk all of one discovery's globs share: each directory is
 * read once, whichever glob and whichever starting directory asks; hidden
 * directories, `.git` and `node_modules` are left out, links to
 * directories are not followed.
 */
class GlobWalk {
  private readonly listings = new Map<string, Listing | undefined>()
  private readonly below = new Map<string, string[]>()
  private read = 0
  /** The directory where the walk first ran out of directories, reported once. */
  stoppedAt: string | undefined

  constructor(private readonly context: DiscoveryContext) {}

  private async listing(dir: string): Promise<Listing | undefined> {
    if (this.listings.has(dir)) return this.listings.get(dir)
    if (this.read >= GLOB_LIMITS.dirs) {
      if (this.stoppedAt === undefined) {
        this.stoppedAt = dir
        this.context.report(
          'harness-config',
          `instructions globs read ${GLOB_LIMITS.dirs} directories, the most one discovery reads for them; ${this.context.display(dir)} and the directories after it were not looked in. Narrow the globs or start from a smaller directory.`,
          dir,
          'info',
        )
      }
      return undefined
    }
    this.read++
    let entries: Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      this.listings.set(dir, undefined)
      return undefined
    }
    const files = entries
      .filter((e) => e.isFile() || e.isSymbolicLink())
      .map((e) => e.name)
      .sort(byCodeUnit)
    const dirs = entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NEVER_WALKED.has(e.name))
      .map((e) => e.name)
      .sort(byCodeUnit)
    const listing = { files, dirs }
    this.listings.set(dir, listing)
    return listing
  }

  /** The files directly in `dir`, by name. */
  async filesIn(dir: string): Promise<string[]> {
    return (await this.listing(dir))?.files ?? []
  }

  /**
   * Every file in and below `dir` (at most `GLOB_LIMITS.depth` levels), as
   * `/`-separated paths relative to it, breadth first, sorted by name
   * within each directory.
   */
  async filesBelow(dir: string): Promise<string[]> {
    const known = this.below.get(dir)
    if (known !== undefined) return known
    const found: string[] = []
    let level: { abs: string; rel: string }[] = [{ abs: dir, rel: '' }]
    for (let depth = 0; level.length > 0 && depth <= GLOB_LIMITS.depth; depth++) {
      const next: { abs: string; rel: string }[] = []
      for (const { abs, rel } of level) {
        const listing = await this.listing(abs)
        if (listing === undefined) continue
        for (const name of listing.files) found.push(rel + name)
        for (const name of listing.dirs) next.push({ abs: join(abs, name), rel: `${rel}${name}/` })
      }
      level = next
    }
    this.below.set(dir, found)
    return found
  }
}

const WALKS = new WeakMap<DiscoveryContext, GlobWalk>()

/** The glob walk of this discovery (one per mode's discovery). */
export function globWalk(context: DiscoveryContext): GlobWalk {
  let walk = WALKS.get(context)
  if (walk === undefined) {
    walk = new GlobWalk(context)
    WALKS.set(context, walk)
  }
  return walk
}
