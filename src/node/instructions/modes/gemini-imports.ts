import { dirname, resolve } from 'node:path'
import { LineCounter } from '../../../shared/line-counter.js'
import { fromFile, type SourceSpan, shiftSpans as shiftSource } from '../../../shared/source-map.js'
import { isInside } from '../../safe-read.js'
import { codeSpans } from '../code-spans.js'
import type { DiscoveryContext } from '../context.js'
import type { DiagnosticSite, InstructionFile } from '../discovery-results.js'
import {
  admit,
  budgetSpent,
  keep,
  loadOnce,
  reportOnce,
  reuse,
  sizeOf,
  spentBytes,
  type Wanted,
  withheldMark,
} from '../expansion.js'
import { type ImportSpan, type Inlined, shiftSpans } from '../import-spans.js'
import { MAX_IMPORT_DEPTH } from '../imports.js'
import { describe } from '../plan.js'
import { isRefusal, type LoadedFile, type LoadRefusal } from '../read.js'

/** One `@path` reference as Gemini CLI finds it. */
export interface GeminiImport {
  start: number
  end: number
  path: string
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r'
}

/**
 * Gemini CLI's import references: an `@` at the start or after whitespace,
 * then everything up to the next whitespace, kept when it starts with `.`,
 * `/` or an ASCII letter. Anywhere in a line, not only on a line of its own.
 */
export function findGeminiImports(content: string): GeminiImport[] {
  const found: GeminiImport[] = []
  let i = content.indexOf('@')
  while (i !== -1) {
    if (i > 0 && !isSpace(content[i - 1])) {
      i = content.indexOf('@', i + 1)
      continue
    }
    let j = i + 1
    while (j < content.length && !isSpace(content[j])) j++
    const path = content.slice(i + 1, j)
    if (/^[./A-Za-z]/.test(path)) found.push({ start: i, end: j, path })
    i = content.indexOf('@', j + 1)
  }
  return found
}

/** Backtick spans (a run of backticks closed by the next run of the same length), where Gemini CLI leaves `@` alone. */
export function codeRegions(content: string): [number, number][] {
  return codeSpans(content)
}

/**
 * Gemini CLI's import inlining, reproduced: each reference is replaced by
 * `<!-- Imported from: p -->`, the imported text (itself processed), and
 * `<!-- End of import from: p -->`; a file at depth 5 is inlined with its
 * own references left as text; the chain guard holds only imported files,
 * not the top file, so a cycle back to the top inlines it a second time
 * and stops one step later with `<!-- File already processed: p -->`; a
 * reference outside `root` or that cannot be read becomes
 * `<!-- Import failed: p - why -->`. Files are read through the confined
 * reader, so a link out of the root fails here where Gemini would follow it.
 * Each file is read once and each subtree inlined once per discovery, then
 * reused; past the expansion budget a mark stands where Gemini CLI would
 * inline a file.
 */
export async function inlineGeminiImports(
  context: DiscoveryContext,
  file: LoadedFile,
  root: string,
): Promise<Inlined> {
  return (await inlineFrom(context, file, root, 0, new Set())).inlined
}

/** An inlined text, and every file its references looked up in the chain (its text depends on whether they are there). */
interface Expanded {
  inlined: Inlined
  tested: Set<string>
}

async function inlineFrom(
  context: DiscoveryContext,
  file: LoadedFile,
  root: string,
  depth: number,
  chain: ReadonlySet<string>,
): Promise<Expanded> {
  const content = file.text
  const tested = new Set<string>()
  if (depth >= MAX_IMPORT_DEPTH) {
    if (findGeminiImports(content).length > 0)
      reportOnce(
        context,
        'import-too-deep',
        `${context.display(file.path)} is imported ${depth} deep; Gemini CLI leaves its own @ references as text.`,
        file.path,
        'info',
      )
    return {
      inlined: { text: content, imports: [], spans: [], map: fromFile(file.path, content).map },
      tested,
    }
  }
  const regions = codeRegions(content)
  const lines = new LineCounter(content)
  const imports: InstructionFile[] = []
  const spans: ImportSpan[] = []
  const map: SourceSpan[] = []
  let out = ''
  let last = 0
  // The file's own text from `start` to `end`, with where it came from (positions asked in order: `lines` stays linear).
  const own = (start: number, end: number): void => {
    if (end > start)
      map.push({ start: out.length, end: out.length + end - start, path: file.path, ...lines.at(start) })
    out += content.slice(start, end)
  }
  const from = context.display(file.path)
  // References and regions both come in order, so one pointer finds the region a reference may lie in.
  let region = 0
  for (const ref of findGeminiImports(content)) {
    own(last, ref.start)
    last = ref.end
    // Findings about a reference point at it in the importing file, not at the file it names.
    const site = { path: file.path, ...lines.at(ref.start) }
    while (region < regions.length && regions[region]![1] <= ref.start) region++
    if (region < regions.length && ref.start >= regions[region]![0]) {
      own(ref.start, ref.end)
      continue
    }
    const full = resolve(dirname(file.path), ref.path)
    const shown = context.display(full)
    if (/^(file|https?):\/\//.test(ref.path) || !isInside(root, full)) {
      reportOnce(
        context,
        'import-outside-root',
        `${from} imports ${ref.path}, outside ${root}; it was not read.`,
        full,
        'warning',
        site,
      )
      context.skip(
        full,
        'outside-root',
        `imported by ${from}, but it lies outside ${root}, so it was not read`,
      )
      out += `<!-- Import failed: ${ref.path} - Path traversal attempt -->`
      continue
    }
    tested.add(full)
    if (chain.has(full)) {
      reportOnce(
        context,
        'import-cycle',
        `${from} imports ${shown} again within one import chain; Gemini CLI stops there.`,
        full,
        'warning',
        site,
      )
      // No skip decision: the file is in the chain, so it is being inlined, and is decided `imported` after.
      out += `<!-- File already processed: ${ref.path} -->`
      continue
    }
    const wanted = { path: full, from, site }
    if (budgetSpent(context)) {
      admit(context, wanted, full, 0) // refused: records the file as withheld
      out += withheldMark(context, full)
      continue
    }
    const refusal = await loadOnce(context, full, [root], context.denyList)
    if (isRefusal(refusal)) {
      out += failed(context, refusal, ref.path, full, from, site)
      continue
    }
    const loaded = refusal
    const nested = await nestedImports(context, loaded, full, wanted, root, depth, chain, tested)
    if (nested === 'withheld') {
      out += withheldMark(context, full)
      continue
    }
    context.decide(full, { status: 'included', code: 'imported', reason: `inlined where ${from} imports it` })
    const imported = describe(loaded, nested.imports)
    imports.push(imported)
    out += `<!-- Imported from: ${ref.path} -->\n`
    spans.push({ file: imported, start: out.length, end: out.length + nested.text.length })
    spans.push(...shiftSpans(nested.spans, out.length))
    map.push(...shiftSource(nested.map ?? [], out.length))
    out += `${nested.text}\n<!-- End of import from: ${ref.path} -->`
  }
  own(last, content.length)
  return { inlined: { text: out, imports, spans, map }, tested }
}

/**
 * The inlined text of `loaded` one level down: reused when the same file
 * was inlined at the same depth before and none of the files its
 * references looked up in the chain is above it here (its text is then the
 * same), else expanded now. `'withheld'` past the expansion budget.
 */
async function nestedImports(
  context: DiscoveryContext,
  loaded: LoadedFile,
  full: string,
  wanted: Wanted,
  root: string,
  depth: number,
  chain: ReadonlySet<string>,
  tested: Set<string>,
): Promise<Inlined | 'withheld'> {
  const key = `${full}\0${depth + 1}\0${root}`
  const reused = reuse(context, key, wanted, loaded.realPath, chain, tested)
  if (reused !== undefined) return reused
  const before = spentBytes(context)
  if (!admit(context, wanted, loaded.realPath, sizeOf(context, loaded))) return 'withheld'
  const expanded = await inlineFrom(context, loaded, root, depth + 1, new Set([...chain, full]))
  for (const path of expanded.tested) tested.add(path)
  keep(context, key, expanded, spentBytes(context) - before, chain)
  return expanded.inlined
}

/** Reports a reference that could not be read and returns the comment Gemini CLI leaves in its place. */
function failed(
  context: DiscoveryContext,
  refusal: LoadRefusal,
  reference: string,
  full: string,
  from: string,
  site: DiagnosticSite,
): string {
  const loaded = refusal.failure
  const why =
    loaded === 'outside-root'
      ? 'Path traversal attempt'
      : loaded === 'missing'
        ? `ENOENT: no such file or directory, access '${full}'`
        : loaded === 'denied'
          ? 'on the deny-list of secret-bearing files'
          : 'not a readable text file'
  const what =
    loaded === 'outside-root'
      ? 'resolves outside the root'
      : loaded === 'missing'
        ? 'does not exist'
        : refusal.why
  reportOnce(
    context,
    loaded === 'outside-root'
      ? 'import-outside-root'
      : loaded === 'missing'
        ? 'import-missing'
        : loaded === 'denied'
          ? 'import-denied'
          : 'unreadable',
    `${from} imports ${reference}, which ${what}; Gemini CLI leaves an "Import failed" comment.`,
    full,
    'warning',
    site,
  )
  // `why` is Gemini CLI's own wording, for the comment it leaves in the text; the explanation
  // speaks sysprompt's, as the other modes' imports do.
  context.skip(
    full,
    loaded,
    `imported by ${from}, but it ${what}${loaded === 'outside-root' ? ', so it was not read' : ''}`,
  )
  return `<!-- Import failed: ${reference} - ${why} -->`
}
