import { dirname, resolve } from 'node:path'
import { LineCounter } from '../../shared/line-counter.js'
import { type SourceSpan, shiftSpans as shiftSource } from '../../shared/source-map.js'
import { isInside } from '../safe-read.js'
import type { DiscoveryContext } from './context.js'
import type { InstructionFile } from './discovery-results.js'
import {
  admit,
  budgetSpent,
  keep,
  loadOnce,
  reportOnce,
  reuse,
  sizeOf,
  spentBytes,
  withheldMark,
} from './expansion.js'
import { type ImportSpan, type Inlined, shiftSpans } from './import-spans.js'
import { describe } from './plan.js'
import { importFailure, isRefusal, type LoadedFile, type LoadRefusal } from './read.js'

/** Imports nest at most this deep: a top file's imports are depth 1, theirs depth 2, … */
export const MAX_IMPORT_DEPTH = 5

/** One `@path` line: where it sits in the text (its line break included) and what it names. */
export interface ImportLine {
  start: number
  end: number
  target: string
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const IMPORT = /^[ \t]*@(\S+)[ \t]*$/

/**
 * The `@path` import lines of a Markdown text, in order: a line holding
 * nothing but `@` and a path, outside fenced code blocks (where an `@`
 * line is an example, not an import). Mid-sentence `@names` are prose.
 */
export function findImportLines(text: string): ImportLine[] {
  const found: ImportLine[] = []
  let fence: string | undefined
  let start = 0
  while (start < text.length) {
    const newline = text.indexOf('\n', start)
    const end = newline === -1 ? text.length : newline + 1
    const line = text.slice(start, newline === -1 ? end : newline).replace(/\r$/, '')
    const marker = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
    } else if (marker !== undefined) {
      fence = marker
    } else {
      const target = IMPORT.exec(line)?.[1]
      if (target !== undefined) found.push({ start, end, target })
    }
    start = end
  }
  return found
}

/**
 * Inlines the `@relative/path.md` lines of `file` (sysprompt mode, SPEC §6):
 * each is replaced by the imported file's text, itself inlined, relative to
 * the importing file, at most `MAX_IMPORT_DEPTH` deep and confined to
 * `roots` (the project root, or the global file's directory). An import
 * that escapes, is missing, cycles back or nests too deep is not followed:
 * its line stays as written and a diagnostic says why. An import past the
 * expansion budget is replaced by a mark. Each file is read once and each
 * subtree inlined once per discovery, then reused, so files that import
 * each other many times over cost what their text costs, not one read per
 * path. The result says where each imported text landed, so a later cut
 * can tell what survived.
 */
export async function inlineImports(
  context: DiscoveryContext,
  file: LoadedFile,
  roots: readonly string[],
): Promise<Inlined> {
  return (await inlineFrom(context, file, roots, 0, [file.realPath])).inlined
}

/** An inlined text, and every file its imports looked up in the chain (its text depends on whether they are there). */
interface Expanded {
  inlined: Inlined
  tested: Set<string>
}

async function inlineFrom(
  context: DiscoveryContext,
  file: LoadedFile,
  roots: readonly string[],
  depth: number,
  chain: readonly string[],
): Promise<Expanded> {
  const text = file.text
  const imports: InstructionFile[] = []
  const spans: ImportSpan[] = []
  const tested = new Set<string>()
  const lines = new LineCounter(text)
  const map: SourceSpan[] = []
  let out = ''
  let last = 0
  // The file's own text from `from` to `to`, with where it came from.
  const own = (from: number, to: number): void => {
    if (to > from)
      map.push({ start: out.length, end: out.length + to - from, path: file.path, ...lines.at(from) })
    out += text.slice(from, to)
  }
  for (const line of findImportLines(text)) {
    own(last, line.start)
    last = line.end
    const lineText = text.slice(line.start, line.end)
    const inlined = await inlineOne(context, file, line.target, roots, depth, chain, tested)
    if (inlined === undefined) {
      own(line.start, line.end)
      continue
    }
    if (inlined === 'withheld') {
      const path = resolve(dirname(file.path), line.target)
      out += `${withheldMark(context, path)}${lineText.endsWith('\n') ? '\n' : ''}`
      continue
    }
    imports.push(inlined.file)
    spans.push({ file: inlined.file, start: out.length, end: out.length + inlined.text.length })
    spans.push(...shiftSpans(inlined.spans, out.length))
    map.push(...shiftSource(inlined.map ?? [], out.length))
    out += lineText.endsWith('\n') && !inlined.text.endsWith('\n') ? `${inlined.text}\n` : inlined.text
  }
  own(last, text.length)
  return { inlined: { text: out, imports, spans, map }, tested }
}

async function inlineOne(
  context: DiscoveryContext,
  importer: LoadedFile,
  target: string,
  roots: readonly string[],
  depth: number,
  chain: readonly string[],
  tested: Set<string>,
): Promise<
  { text: string; file: InstructionFile; spans: ImportSpan[]; map?: SourceSpan[] } | 'withheld' | undefined
> {
  const path = resolve(dirname(importer.path), target)
  const from = context.display(importer.path)
  const shown = context.display(path)
  if (depth + 1 > MAX_IMPORT_DEPTH) {
    reportOnce(
      context,
      'import-too-deep',
      `${from} imports ${shown} at depth ${depth + 1}; imports nest at most ${MAX_IMPORT_DEPTH} deep, so it was not followed. Import it from a shallower file.`,
      path,
    )
    context.skip(path, 'import-too-deep', `imported by ${from} deeper than ${MAX_IMPORT_DEPTH} levels`)
    return undefined
  }
  const wanted = { path, from }
  // Past the budget nothing more is read: the mark stands in for whatever the file holds.
  if (budgetSpent(context)) {
    admit(context, wanted, path, 0) // refused: records the file as withheld
    return 'withheld'
  }
  const loaded: LoadedFile | LoadRefusal = roots.some((root) => isInside(root, path))
    ? await loadOnce(context, path, roots, context.denyList)
    : { failure: 'outside-root', why: 'lies outside the project' }
  if (isRefusal(loaded)) {
    const { code, what } = importFailure(loaded, roots)
    const fix =
      loaded.failure === 'outside-root'
        ? 'it was not read. Move the file inside the project'
        : 'the @ line was left as written'
    reportOnce(context, code, `${from} imports ${shown}, which ${what}; ${fix}.`, path)
    context.skip(
      path,
      loaded.failure,
      `imported by ${from}, but it ${what}${loaded.failure === 'outside-root' ? ', so it was not read' : ''}`,
    )
    return undefined
  }
  tested.add(loaded.realPath)
  if (chain.includes(loaded.realPath)) {
    const cycle = [...chain, loaded.realPath].map((p) => context.display(p)).join(' → ')
    reportOnce(
      context,
      'import-cycle',
      `import cycle ${cycle}: the import of ${shown} by ${from} was not followed.`,
      path,
    )
    context.skip(
      path,
      'import-cycle',
      `its import by ${from} closes a cycle (${cycle}), so it was not followed there`,
    )
    return undefined
  }
  // The same file at the same depth inlines the same way wherever it is imported, unless its cycle checks meet this chain.
  const key = `${loaded.realPath}\0${depth + 1}\0${roots.join('\0')}`
  let nested = reuse(context, key, wanted, loaded.realPath, chain, tested)
  if (nested === 'withheld') return 'withheld'
  if (nested === undefined) {
    const before = spentBytes(context)
    if (!admit(context, wanted, loaded.realPath, sizeOf(context, loaded))) return 'withheld'
    const expanded = await inlineFrom(context, loaded, roots, depth + 1, [...chain, loaded.realPath])
    for (const path of expanded.tested) tested.add(path)
    keep(context, key, expanded, spentBytes(context) - before, chain)
    nested = expanded.inlined
  }
  context.decide(path, { status: 'included', code: 'imported', reason: `inlined where ${from} imports it` })
  return { text: nested.text, file: describe(loaded, nested.imports), spans: nested.spans, map: nested.map }
}
