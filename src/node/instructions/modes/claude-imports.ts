import { dirname, join, resolve } from 'node:path'
import { LineCounter } from '../../../shared/line-counter.js'
import { isInside } from '../../safe-read.js'
import { blankCodeSpans } from '../code-spans.js'
import type { DiscoveryContext } from '../context.js'
import { budgetSpent, loadOnce, reportOnce } from '../expansion.js'
import { MAX_IMPORT_DEPTH } from '../imports.js'
import { type PlannedEntry, plannedEntry } from '../plan.js'
import { importFailure, isRefusal, type LoadedFile } from '../read.js'

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const REFERENCE = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g

/** One `@path` reference: the path Claude Code reads from it and where its `@` sits in the text. */
export interface ClaudeReference {
  path: string
  /** UTF-16 offset of the `@`. */
  start: number
}

/**
 * The `@path` references of a CLAUDE.md as Claude Code reads them: an `@`
 * at the start of a line or after whitespace, outside fenced code blocks
 * and inline code spans; `\ ` escapes a space and a `#fragment` is dropped.
 * Paths are relative (`@docs/a.md`, `@./a.md`), home-relative (`@~/a.md`)
 * or absolute. Whatever follows the `@` up to the next blank is the path,
 * punctuation included (`@a.md.` names `a.md.`), as Claude Code reads it.
 */
export function findClaudeReferences(text: string): ClaudeReference[] {
  const found: ClaudeReference[] = []
  let fence: string | undefined
  let offset = 0
  for (const raw of text.split('\n')) {
    const lineStart = offset
    offset += raw.length + 1
    const marker = FENCE.exec(raw)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      continue
    }
    if (marker !== undefined) {
      fence = marker
      continue
    }
    const line = blankCodeSpans(raw)
    for (const match of line.matchAll(REFERENCE)) {
      const path = match[1]!.replace(/\\ /g, ' ').replace(/#.*$/, '')
      if (/^(?:\.{1,2}\/|~\/|\/|[A-Za-z0-9_-])/.test(path))
        found.push({ path, start: lineStart + match.index + match[0].length - match[1]!.length - 1 })
    }
  }
  return found
}

/** The paths of `findClaudeReferences`. */
export function findClaudeImports(text: string): string[] {
  return findClaudeReferences(text).map((reference) => reference.path)
}

const TRAILING_PUNCTUATION = /[.,;:!?'"`)\]}>*_]+$/
const NPM_PACKAGE = /^[a-z0-9][a-z0-9._~-]*\/[a-z0-9][a-z0-9._~-]*$/
const EXTENSION = /\.[A-Za-z0-9]{1,10}$/

/**
 * Whether a reference that names no file reads as a path its author meant
 * to import, so that saying it is missing helps: Claude Code tries every
 * `@word` and skips a missing one silently, so prose (`Thanks @user"`,
 * `@here`) and package names (the npm scope `@cline/llms`) would otherwise
 * each be "an import that does not exist". A path is one that, without
 * trailing punctuation, starts `./`, `../`, `~/` or `/`, or holds a `/` or
 * ends in a file extension; a lower-case `scope/name` without an extension
 * is an npm package name, not a path.
 */
export function looksLikePath(path: string): boolean {
  const bare = path.replace(TRAILING_PUNCTUATION, '')
  if (bare.length === 0) return false
  if (/^(?:\.{1,2}\/|~\/|\/.)/.test(bare)) return true
  if (NPM_PACKAGE.test(bare) && !EXTENSION.test(bare)) return false
  return bare.includes('/') || EXTENSION.test(bare)
}

/** `path` without the punctuation a sentence puts after it (`README.md.` → `README.md`). */
export function withoutTrailingPunctuation(path: string): string {
  return path.replace(TRAILING_PUNCTUATION, '') || path
}

/** What the import walk needs besides the context: who may be imported, and what is already loaded. */
export interface ClaudeImportScope {
  /** Real paths of every file loaded so far (top-level files and imports). */
  seen: Set<string>
}

/**
 * The entries Claude Code adds for a file's imports: each imported file is
 * a block of its own right after its importer, depth first (its own imports
 * follow it), at most 5 deep; the `@` line stays in the importer's text. A
 * file already loaded is not loaded again (that is also what stops cycles).
 * A project file may import only files inside cwd and a global file only
 * files inside its own directory: Claude Code drops other imports unless
 * the user approves them, and no approval is assumed here.
 */
export async function claudeImports(
  context: DiscoveryContext,
  importer: LoadedFile,
  kind: 'global' | 'project' | 'import',
  allowed: string,
  distance: number,
  scope: ClaudeImportScope,
  depth = 0,
  chain: readonly string[] = [importer.realPath],
): Promise<PlannedEntry[]> {
  if (!context.options.imports) return []
  const entries: PlannedEntry[] = []
  const from = context.display(importer.path)
  const lines = new LineCounter(importer.text)
  for (const { path: reference, start } of findClaudeReferences(importer.text)) {
    const path = reference.startsWith('~/')
      ? join(context.home, reference.slice(2))
      : resolve(dirname(importer.path), reference)
    const shown = context.display(path)
    // Findings about a reference point at its `@` in the importing file.
    const site = { path: importer.path, ...lines.at(start) }
    const at = `${from}:${site.line}`
    if (depth + 1 > MAX_IMPORT_DEPTH) {
      reportOnce(
        context,
        'import-too-deep',
        `${at} imports ${shown} deeper than ${MAX_IMPORT_DEPTH} levels; Claude Code stops there.`,
        path,
        'warning',
        site,
      )
      context.skip(path, 'import-too-deep', `imported by ${from} deeper than ${MAX_IMPORT_DEPTH} levels`)
      continue
    }
    if (!isInside(allowed, path)) {
      const approval = kind === 'global' ? undefined : context.setting('hasClaudeMdExternalIncludesApproved')
      const code =
        kind === 'global' || approval?.value === true ? 'import-outside-root' : 'import-outside-cwd'
      reportOnce(
        context,
        code,
        approval?.value === true
          ? `${at} imports ${shown}, outside the project root ${allowed}; it is approved (${approval.source}), but nothing outside the project is read.`
          : `${at} imports ${shown}, outside ${allowed}; Claude Code drops such an import unless approved (hasClaudeMdExternalIncludesApproved; --harness-config hasClaudeMdExternalIncludesApproved=true).`,
        path,
        'warning',
        site,
      )
      context.skip(
        path,
        approval?.value === true ? 'outside-root' : 'outside-cwd',
        approval?.value === true
          ? `imported by ${from} but outside the project root ${allowed}`
          : `imported by ${from} but outside ${allowed}, and such imports need approval${approval === undefined ? '' : ` (${approval.source} is false)`}`,
      )
      continue
    }
    // Read once per discovery: a file named by many references costs one read (and the seen check below).
    const loaded = await loadOnce(context, path, [allowed], context.denyList)
    if (isRefusal(loaded)) {
      // Claude Code tries every reference and skips one it cannot read without a word; only a
      // reference written as a path is worth a finding (prose and package names are not).
      if (!looksLikePath(reference)) continue
      const { code, what } = importFailure(loaded, [allowed])
      const bare = withoutTrailingPunctuation(reference)
      const quoted = `\`@${bare}\``
      const punctuation = reference.slice(bare.length)
      const outcome = loaded.failure === 'missing' ? 'Claude Code skips it silently' : 'it was skipped'
      reportOnce(
        context,
        code,
        punctuation.length > 0
          ? `${at}: ${quoted} is read as ${reference}, with the "${punctuation}" after it, which ${what}; ${outcome} (put a space before the "${punctuation}").`
          : `${at}: ${quoted} names ${shown}, which ${what}; ${outcome}.`,
        path,
        'warning',
        site,
      )
      context.skip(path, loaded.failure, `imported by ${from} (line ${site.line}), but it ${what}`)
      continue
    }
    if (scope.seen.has(loaded.realPath)) {
      if (chain.includes(loaded.realPath)) {
        reportOnce(
          context,
          'import-cycle',
          `${at} imports ${shown}, which is already in its import chain; not loaded again.`,
          path,
          'warning',
          site,
        )
        context.skip(path, 'import-cycle', `its import by ${from} closes a cycle, so it is not loaded again`)
      } else {
        context.skip(path, 'duplicate', `already loaded earlier; its import by ${from} adds nothing`)
      }
      continue
    }
    scope.seen.add(loaded.realPath)
    const entry = await plannedEntry(context, loaded, 'import', { distance, note: `imported by ${from}` })
    entry.file = { ...entry.file, importedBy: importer.path }
    const approval = context.setting('hasClaudeMdExternalIncludesApproved')
    if (kind !== 'global' && approval?.value === true && !isInside(context.cwd, path))
      entry.setBy = `hasClaudeMdExternalIncludesApproved (${approval.source})`
    entries.push(entry)
    // A file withheld past the expansion budget is not read for imports of its own.
    if (budgetSpent(context)) continue
    entries.push(
      ...(await claudeImports(
        context,
        loaded,
        kind === 'global' ? 'global' : 'import',
        allowed,
        distance,
        scope,
        depth + 1,
        [...chain, loaded.realPath],
      )),
    )
  }
  return entries
}
