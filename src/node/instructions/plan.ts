import { dirname, join, relative, sep } from 'node:path'
import { fromFile, mapPiece, type SourceSpan } from '../../shared/source-map.js'
import { isInside } from '../safe-read.js'
import { groupDigits } from './budget.js'
import type { DiscoveryContext } from './context.js'
import type { InstructionFile } from './discovery-results.js'
import { admit, sizeOf, withheldMark, withheldRule } from './expansion.js'
import type { ImportSpan, Inlined } from './import-spans.js'
import { isFile, type LoadedFile } from './read.js'

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
  /** Where each inlined import (any depth) sits in `text`, for modes that inline. */
  spans: readonly ImportSpan[]
  /** Where each stretch of `text` came from: the file's own lines, each inlined import's (none for a withheld mark). */
  map: readonly SourceSpan[]
  /** The harness setting that brought this file in, in words (`project_doc_fallback_filenames in ~/.codex/config.toml`), for explanations. */
  setBy?: string
  /** A cut the tool makes in this one file (Windsurf's per-rule limit): what it cost and the rule, for `explain`. */
  limit?: { omitted: number; rule: string }
}

/**
 * Which cap a mode applies: our visible nearest-first budget (endless for
 * a harness without a cap), or Codex's silent root-first cut.
 */
export type CapRule =
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

/**
 * How a cap is spoken of, per mode: only Codex's cap is silent and spent
 * root first (its `project_doc_max_bytes`); every other mode's cap is the
 * visible nearest-first budget of `maxBytes`, which marks its cuts.
 * `left` is how many files the budget left out (the words agree with it).
 */
export function capWords(cap: CapRule, left = 2): { rule: string; overBudget: string } {
  const bytes = groupDigits(cap.maxBytes)
  const them = left === 1 ? 'it' : 'them'
  if (cap.kind === 'root-first-silent') {
    return {
      rule: 'Codex cuts silently, root first',
      overBudget:
        cap.maxBytes === 0
          ? "a project_doc_max_bytes of 0 turns Codex's project files off."
          : `Codex's ${bytes}-byte project_doc_max_bytes was spent before ${them}. Raise it or shorten the files nearer the root.`,
    }
  }
  return {
    rule: 'nearest-first: files nearer the working directory come first',
    overBudget: `the ${bytes}-byte nearest-first budget (maxBytes) ran out before ${them}; a notice in the text marks the cut. Raise maxBytes or shorten the files nearer the working directory.`,
  }
}

/** The cap of a harness without one: a nearest-first budget without end (it never cuts), unless the caller asked for a byte cap. */
export function optionalCap(context: DiscoveryContext): CapRule {
  return { kind: 'nearest-first', maxBytes: context.options.maxBytes ?? Number.POSITIVE_INFINITY }
}

/** How many directories `dir` lies above `cwd`; global files and others off the line count as farthest. */
export function distanceFrom(context: DiscoveryContext, dir: string): number {
  if (!isInside(dir, context.cwd)) return Number.POSITIVE_INFINITY
  const rel = relative(dir, context.cwd)
  return rel === '' ? 0 : rel.split(sep).length
}

/** The `InstructionFile` of a loaded file. */
export function describe(loaded: LoadedFile, imports: InstructionFile[]): InstructionFile {
  const file: InstructionFile = {
    path: loaded.path,
    bytes: loaded.bytes,
    hash: loaded.hash,
    truncated: loaded.readTruncated,
  }
  if (imports.length > 0) file.imports = imports
  return file
}

/** How a mode turns a loaded file into its entry; every part is optional. */
export interface EntryShape {
  /** Inlines the file's imports (modes that inline); not called when imports are off. */
  inline?: (loaded: LoadedFile) => Promise<Inlined>
  /** The text the mode sends, from the (inlined) text: trimmed, front matter removed, … */
  shape?: (inlined: Inlined) => Inlined
  /** The mode leaves the file out when `when` holds of its final text; `reason` is recorded. */
  blank?: { when: (text: string) => boolean; reason: string }
  /** Defaults to farthest for a global file, else counted from the file's directory. */
  distance?: number
  /** Shown after the path in the header. */
  note?: string
}

/**
 * The one way every mode turns a file it found and loaded into a planned
 * entry: its imports inlined when the mode inlines them (and imports are
 * on), its text shaped as the mode sends it, left out (recorded as
 * `empty`) when the mode skips it as blank, and placed at its distance from
 * cwd. `undefined` only when it was left out as blank. Each file counts
 * against the mode's expansion budget; past it, the entry's text is a
 * withheld mark.
 */
export async function plannedEntry(
  context: DiscoveryContext,
  loaded: LoadedFile,
  kind: PlannedEntry['kind'],
  shape?: EntryShape & { blank?: undefined },
): Promise<PlannedEntry>
export async function plannedEntry(
  context: DiscoveryContext,
  loaded: LoadedFile,
  kind: PlannedEntry['kind'],
  shape: EntryShape,
): Promise<PlannedEntry | undefined>
export async function plannedEntry(
  context: DiscoveryContext,
  loaded: LoadedFile,
  kind: PlannedEntry['kind'],
  shape: EntryShape = {},
): Promise<PlannedEntry | undefined> {
  const distance =
    shape.distance ??
    (kind === 'global' ? Number.POSITIVE_INFINITY : distanceFrom(context, dirname(loaded.path)))
  if (!admit(context, { path: loaded.path }, loaded.realPath, sizeOf(context, loaded))) {
    // Past the expansion budget: a mark stands where the harness would send the file.
    return {
      path: loaded.path,
      kind,
      text: `${withheldMark(context, loaded.path)}\n`,
      file: { ...describe(loaded, []), truncated: true },
      distance,
      note: shape.note,
      spans: [],
      map: [],
      limit: { omitted: loaded.text.length, rule: withheldRule(context) },
    }
  }
  const inlined: Inlined =
    shape.inline !== undefined && context.options.imports
      ? await shape.inline(loaded)
      : { text: loaded.text, imports: [], spans: [], map: fromFile(loaded.path, loaded.text).map }
  const shaped = shape.shape?.(inlined) ?? inlined
  const { text, imports, spans } = shaped
  if (shape.blank?.when(text)) {
    context.skip(loaded.path, 'empty', shape.blank.reason)
    return undefined
  }
  // A shape that cut the text (front matter, trimming) without saying where keeps the spans of the piece it kept.
  const map = shaped.map ?? mapPiece({ text: inlined.text, map: inlined.map ?? [] }, text)
  return {
    path: loaded.path,
    kind,
    text,
    file: describe(loaded, imports),
    distance,
    note: shape.note,
    spans,
    map,
  }
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
