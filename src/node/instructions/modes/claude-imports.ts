import { dirname, join, resolve } from 'node:path'
import { isInside } from '../../safe-read.js'
import { blankCodeSpans } from '../code-spans.js'
import type { DiscoveryContext } from '../context.js'
import { budgetSpent, loadOnce, reportOnce } from '../expansion.js'
import { MAX_IMPORT_DEPTH } from '../imports.js'
import { type PlannedEntry, plannedEntry } from '../plan.js'
import { importFailure, isRefusal, type LoadedFile } from '../read.js'

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const REFERENCE = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g

/**
 * The `@path` references of a CLAUDE.md as Claude Code reads them: an `@`
 * at the start of a line or after whitespace, outside fenced code blocks
 * and inline code spans; `\ ` escapes a space and a `#fragment` is dropped.
 * Paths are relative (`@docs/a.md`, `@./a.md`), home-relative (`@~/a.md`)
 * or absolute.
 */
export function findClaudeImports(text: string): string[] {
  const found: string[] = []
  let fence: string | undefined
  for (const raw of text.split('\n')) {
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
      if (/^(?:\.{1,2}\/|~\/|\/|[A-Za-z0-9_-])/.test(path)) found.push(path)
    }
  }
  return found
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
  for (const reference of findClaudeImports(importer.text)) {
    const path = reference.startsWith('~/')
      ? join(context.home, reference.slice(2))
      : resolve(dirname(importer.path), reference)
    const shown = context.display(path)
    if (depth + 1 > MAX_IMPORT_DEPTH) {
      context.report(
        'import-too-deep',
        `${from} imports ${shown} deeper than ${MAX_IMPORT_DEPTH} levels; Claude Code stops there.`,
        path,
      )
      context.skip(path, 'import-too-deep', `imported by ${from} deeper than ${MAX_IMPORT_DEPTH} levels`)
      continue
    }
    if (!isInside(allowed, path)) {
      const approval = kind === 'global' ? undefined : context.setting('hasClaudeMdExternalIncludesApproved')
      const code =
        kind === 'global' || approval?.value === true ? 'import-outside-root' : 'import-outside-cwd'
      context.report(
        code,
        approval?.value === true
          ? `${from} imports ${shown}, outside the project root ${allowed}; it is approved (${approval.source}), but nothing outside the project is read.`
          : `${from} imports ${shown}, outside ${allowed}; Claude Code drops such an import unless approved (hasClaudeMdExternalIncludesApproved; --harness-config hasClaudeMdExternalIncludesApproved=true).`,
        path,
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
      const { code, what } = importFailure(loaded, [allowed])
      const severity = loaded.failure === 'missing' ? 'info' : 'warning'
      reportOnce(context, code, `${from} imports ${shown}, which ${what}; it was skipped.`, path, severity)
      context.skip(path, loaded.failure, `imported by ${from}, but it ${what}`)
      continue
    }
    if (scope.seen.has(loaded.realPath)) {
      if (chain.includes(loaded.realPath)) {
        context.report(
          'import-cycle',
          `${from} imports ${shown}, which is already in its import chain; not loaded again.`,
          path,
        )
        context.skip(path, 'import-cycle', `its import by ${from} closes a cycle, so it is not loaded again`)
      } else {
        context.skip(path, 'duplicate', `already loaded earlier; its import by ${from} adds nothing`)
      }
      continue
    }
    scope.seen.add(loaded.realPath)
    const entry = await plannedEntry(context, loaded, 'import', { distance, note: `imported by ${from}` })
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
