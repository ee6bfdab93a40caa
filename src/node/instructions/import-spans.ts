import { type SourceSpan, trimMapped } from '../../shared/source-map.js'
import type { InstructionFile } from './discovery-results.js'

/**
 * Where one inlined import's text sits in its top file's text (UTF-16
 * offsets, `end` exclusive). Kept so that, when a byte cap cuts the top
 * file, discovery can tell which imports still reached the prompt whole,
 * which only in part and which not at all.
 */
export interface ImportSpan {
  /** The import's entry in its importer's `imports` (the same object). */
  file: InstructionFile
  start: number
  end: number
}

/** A text with its imports inlined: the files it imported (a tree) and where each one, at any depth, sits. */
export interface Inlined {
  text: string
  imports: InstructionFile[]
  spans: ImportSpan[]
  /** Where each stretch of `text` came from (the importer's own lines and each import's), when the inliner kept it. */
  map?: SourceSpan[]
}

/** How much of an inlined import reached the prompt after a cut. */
export type ImportFate = 'whole' | 'cut' | 'gone'

/** `spans` moved `by` characters (nested imports placed into their importer's text). */
export function shiftSpans(spans: readonly ImportSpan[], by: number): ImportSpan[] {
  return spans.map((span) => ({ file: span.file, start: span.start + by, end: span.end + by }))
}

/** An inlined text trimmed at both ends (as Gemini CLI and Codex's global file are), its spans moved along. */
export function trimInlined(inlined: Inlined): Inlined {
  const text = inlined.text.trim()
  const lead = inlined.text.length - inlined.text.trimStart().length
  const clamp = (n: number): number => Math.min(Math.max(n - lead, 0), text.length)
  return {
    text,
    imports: inlined.imports,
    spans: inlined.spans.map((span) => ({ file: span.file, start: clamp(span.start), end: clamp(span.end) })),
    ...(inlined.map && { map: trimMapped({ text: inlined.text, map: inlined.map }).map }),
  }
}

/**
 * The fate of each import of a top file of which only a prefix of
 * `keptChars` characters reached the prompt: `whole` when its text lies in
 * the prefix, `gone` when it starts at or after the cut, `cut` otherwise.
 * `keptChars` is `undefined` when what was cut is not the inlined text
 * itself (a synopsis): every import then counts as `cut`, since any of it
 * may be lost.
 */
export function importFates(
  spans: readonly ImportSpan[],
  keptChars: number | undefined,
): Map<InstructionFile, ImportFate> {
  const fates = new Map<InstructionFile, ImportFate>()
  for (const { file, start, end } of spans) {
    const fate: ImportFate =
      keptChars === undefined ? 'cut' : end <= keptChars ? 'whole' : start >= keptChars ? 'gone' : 'cut'
    fates.set(file, fate)
  }
  return fates
}

/** `file` with every import whose fate is not `whole` marked truncated (a copy; `file` is left alone). */
export function markCutImports(
  file: InstructionFile,
  fates: ReadonlyMap<InstructionFile, ImportFate>,
): InstructionFile {
  if (file.imports === undefined) return { ...file }
  const imports = file.imports.map((imported) => {
    const copy = markCutImports(imported, fates)
    const fate = fates.get(imported)
    if (fate !== undefined && fate !== 'whole') copy.truncated = true
    return copy
  })
  return { ...file, imports }
}
