import { join, relative, sep } from 'node:path'
import { isInside } from '../safe-read.js'
import type { DiscoveryContext } from './context.js'
import { isFile, type LoadedFile } from './read.js'
import type { InstructionFile } from './types.js'

/** One block of the prompt as a mode planned it, before any cap. */
export interface PlannedEntry {
  path: string
  kind: 'global' | 'project' | 'import'
  /** The text this file contributes (imports already inlined where the mode inlines). */
  text: string
  file: InstructionFile
  /** Directories between the file's directory and cwd (0 in cwd); global files are farthest. */
  distance: number
  /** Shown after the path in the header, e.g. `imported by CLAUDE.md`. */
  note?: string
}

/** Which cap a mode applies: none, our visible nearest-first budget, or Codex's silent root-first cut. */
export type CapRule =
  | { kind: 'none' }
  | { kind: 'nearest-first'; maxBytes: number }
  | { kind: 'root-first-silent'; maxBytes: number }

/** What a mode hands back: its files in load order and the cap to apply. */
export interface ModePlan {
  entries: PlannedEntry[]
  cap: CapRule
}

/** One mode's discovery rules. */
export interface ModeRules {
  plan(context: DiscoveryContext): Promise<ModePlan>
}

/** The cap of a harness without one: none, unless the caller asked for a byte cap. */
export function optionalCap(context: DiscoveryContext): CapRule {
  const maxBytes = context.options.maxBytes
  return maxBytes === undefined ? { kind: 'none' } : { kind: 'nearest-first', maxBytes }
}

/** How many directories `dir` lies above `cwd`; global files and others off the line count as farthest. */
export function distanceFrom(context: DiscoveryContext, dir: string): number {
  if (!isInside(dir, context.cwd)) return Number.POSITIVE_INFINITY
  const rel = relative(dir, context.cwd)
  return rel === '' ? 0 : rel.split(sep).length
}

/** The `InstructionFile` of a loaded file. */
export function describe(loaded: LoadedFile, imports?: InstructionFile[]): InstructionFile {
  const file: InstructionFile = {
    path: loaded.path,
    bytes: loaded.bytes,
    hash: loaded.hash,
    truncated: loaded.readTruncated,
  }
  if (imports !== undefined && imports.length > 0) file.imports = imports
  return file
}

/**
 * The first of `names` present in `dir` (one file per directory); every
 * other candidate present there is recorded as having lost to it.
 */
export async function firstPresent(
  context: DiscoveryContext,
  dir: string,
  names: readonly string[],
): Promise<string | undefined> {
  let chosen: string | undefined
  for (const name of names) {
    const path = join(dir, name)
    if (!(await isFile(context, path))) continue
    if (chosen === undefined) chosen = path
    else
      context.skip(
        path,
        'name-lost',
        `${context.display(chosen)} won in that directory: one file per directory, the first of ${names.join(', ')}`,
      )
  }
  return chosen
}

/** `names` without repeats or empty names, in order. */
export function uniqueNames(names: readonly string[]): string[] {
  return [...new Set(names.filter((name) => name.length > 0))]
}
