import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { byCodeUnit } from '../../../registry/tool-order.js'
import { parseFragment } from '../../../shared/fragment.js'
import '../../front-matter-yaml.js'
import type { DiscoveryContext } from '../context.js'
import type { RuleActivation } from '../discovery-options.js'
import { type GlobSyntax, splitGlobs } from '../globs.js'
import { type PlannedEntry, plannedEntry } from '../plan.js'
import { isFile, type LoadedFile, loadFound } from '../read.js'

/**
 * What the convention modes share (issue 16): listing a rules directory,
 * reading a rule's front matter, and filing each rule under its activation
 * (loaded at start, on demand by glob, on request, by hand). Every file is
 * read through `loadFound` (the confined, size-capped read); directories
 * are listed without following links to directories.
 */

/** A rule file's front matter, as plain data, and the text the tool sends (the body). */
export interface RuleText {
  /** Every front-matter field, as the fragment parser gave it (`paths` and `excludes` as lists). */
  data: Record<string, unknown>
  body: string
  /** Whether the front matter is strict YAML; false when the lenient line reading was used instead. */
  yaml: boolean
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/

/**
 * Reads a rule's front matter through the fragment parser (SPEC §6). Tools
 * read their front matter leniently: Cursor's own examples write
 * `globs: *.ts`, which YAML takes for an alias. When the parser refuses,
 * each `key: value` line is read as text instead (what those tools do), so
 * a rule is filed as its tool files it, and never dropped for our parser.
 */
export function readRule(text: string, file: string): RuleText {
  const parsed = parseFragment(text, { file })
  const fragment = parsed.fragment
  if (fragment !== undefined) {
    const data: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(fragment.extra)) data[key] = value
    for (const key of ['description', 'paths', 'excludes', 'enabled', 'order', 'priority', 'models'] as const)
      if (fragment[key] !== undefined) data[key] = fragment[key]
    return { data, body: fragment.body, yaml: true }
  }
  const match = FRONT_MATTER.exec(text)
  if (match === null) return { data: {}, body: text, yaml: false }
  const data: Record<string, unknown> = {}
  for (const line of (match[1] ?? '').split(/\r?\n/)) {
    const pair = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$/.exec(line)
    if (pair === null) continue
    const value = pair[2]!.replace(/^(["'])(.*)\1$/, '$2')
    Object.defineProperty(data, pair[1]!, {
      value: value === 'true' ? true : value === 'false' ? false : value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return { data, body: text.slice(match[0].length).replace(/\r\n?/g, '\n'), yaml: false }
}

export { splitGlobs } from '../globs.js'

/**
 * Globs from a front-matter value: a list, or one text split by `splitGlobs`
 * (`split: false` keeps the text whole, as Continue and Kiro do); empty for
 * anything else.
 */
export function globList(value: unknown, split = true): string[] {
  const items = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? split
        ? splitGlobs(value)
        : [value]
      : []
  return items
    .filter((item): item is string => typeof item === 'string')
    .map((glob) => glob.trim())
    .filter((glob) => glob.length > 0)
}

/** The description a rule gives the model, when it has one. */
export function descriptionOf(data: Record<string, unknown>): string | undefined {
  const value = data.description
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined
}

/**
 * Files of `dir` whose names pass `wanted`, sorted by path (recursively
 * when asked, leaving out the subdirectories of `dir` named in `skipDirs`;
 * links to directories are not followed); `others` are the remaining
 * regular files, for explanations.
 */
export async function listRules(
  dir: string,
  wanted: (name: string) => boolean,
  recursive: boolean,
  skipDirs: ReadonlySet<string> = new Set(),
): Promise<{ files: string[]; others: string[] }> {
  const files: string[] = []
  const others: string[] = []
  const walk = async (at: string): Promise<void> => {
    let entries: Dirent[]
    try {
      entries = await readdir(at, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) {
        if (recursive && !(at === dir && skipDirs.has(entry.name))) await walk(path)
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        ;(wanted(entry.name) ? files : others).push(path)
      }
    }
  }
  await walk(dir)
  return { files: files.sort(byCodeUnit), others: others.sort(byCodeUnit) }
}

/** Where a rule's globs are resolved from, and how its activation reads in `explain`. */
export interface RuleFiling {
  activation: RuleActivation
  /** For `glob`: the globs, relative to `base`, split as the tool splits them. */
  globs: readonly string[]
  /** How the tool matches them (`picomatch` when absent); see `globs.ts`. */
  syntax?: GlobSyntax
  /** The globs as the rule writes them, to show (`globs` joined by `, ` when absent). */
  written?: string
  base?: string
  description?: string
  /** The text the tool sends (front matter removed). */
  text: string
  /** The tool's name, for reasons: `Cursor`. */
  tool: string
  /** Why, in the tool's terms: `alwaysApply: true`. */
  because: string
}

/**
 * Files one rule under its activation: `always` becomes a planned entry
 * (returned, for the caller to place), `glob` an on-demand file attached
 * when a working path matches, `requested` and `manual` entries of
 * `onRequest`. The activation is recorded for `explain` and the results.
 */
export async function fileRule(
  context: DiscoveryContext,
  loaded: LoadedFile,
  filing: RuleFiling,
  kind: 'global' | 'project' = 'project',
): Promise<PlannedEntry | undefined> {
  context.activations.set(loaded.path, filing.activation)
  if (filing.activation === 'always') {
    const text = filing.text
    return plannedEntry(context, loaded, kind, { shape: () => ({ text, imports: [], spans: [] }) })
  }
  if (filing.activation === 'glob') {
    context.onDemand.push({
      loaded,
      trigger: {
        kind: 'matches',
        globs: filing.globs,
        base: filing.base ?? context.root,
        ...(filing.syntax === undefined ? {} : { syntax: filing.syntax }),
        ...(filing.written === undefined ? {} : { written: filing.written }),
      },
      text: filing.text,
    })
    return undefined
  }
  const requested = filing.activation === 'requested'
  context.onRequest.push({
    path: loaded.path,
    activation: filing.activation,
    ...(filing.description === undefined ? {} : { description: filing.description }),
    tokens: context.count(filing.text),
    bytes: loaded.bytes,
    hash: loaded.hash,
  })
  context.decide(loaded.path, {
    status: 'skipped',
    code: requested ? 'on-request' : 'manual-rule',
    reason: requested
      ? `${filing.tool} loads it only when the model asks for it by its description (${filing.because}); it is not in the prompt at start`
      : `${filing.tool} loads it only when the user names it (${filing.because}); it never loads by itself`,
  })
  return undefined
}

/** Loads a file a convention mode found, confined to the project root (or its own directory outside it). */
export async function loadRuleFile(
  context: DiscoveryContext,
  path: string,
  dir: string,
): Promise<LoadedFile | undefined> {
  if (!(await isFile(context, path))) return undefined
  return loadFound(context, path, context.confinementFor(dir))
}

/** Records the files of a rules directory that the tool ignores for their name (a `.md` where `.mdc` is required). */
export function skipWrongNames(context: DiscoveryContext, others: readonly string[], words: string): void {
  for (const path of others) context.skip(path, 'wrong-extension', words)
}

/** A plain file loaded at start (AGENTS.md, `.cursorrules`, …): its activation is `always`. */
export async function alwaysFile(
  context: DiscoveryContext,
  path: string,
  dir: string,
  kind: 'global' | 'project' = 'project',
): Promise<PlannedEntry | undefined> {
  const loaded = await loadRuleFile(context, path, dir)
  if (loaded === undefined) return undefined
  context.activations.set(path, 'always')
  return plannedEntry(context, loaded, kind)
}

/** Pushes the defined entries. */
export function pushAll(entries: PlannedEntry[], ...found: (PlannedEntry | undefined)[]): void {
  for (const entry of found) if (entry !== undefined) entries.push(entry)
}
