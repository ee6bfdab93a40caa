import { type MappedText, type SourceSpan, shiftSpans } from '../../shared/source-map.js'
/**
 * The header line above each file in `text`: an HTML comment naming the
 * file relative to the project root (`<!-- docs/AGENTS.md -->`; `~/…` for a
 * global file, `../…` above the root), with a note when there is one
 * (`<!-- notes.md (imported by CLAUDE.md) -->`). A comment stays out of the
 * way of the file's own Markdown headings, and models read it as metadata.
 */
export function header(shown: string, note?: string): string {
  return `<!-- ${shown}${note === undefined ? '' : ` (${note})`} -->`
}

/** One file's block: its header and the text it contributes. */
export interface Block {
  shown: string
  note?: string
  body: string
  /** The file's absolute path. */
  path: string
  /** Imports inlined in `body`: absolute path and where in `body` (clamped to what was kept). */
  imports?: { path: string; start: number; end: number }[]
  /** Where each stretch of `body` came from (none for sysprompt's own words: a synopsis, an omission notice). */
  map?: readonly SourceSpan[]
}

/**
 * Where one file's text sits in a discovery's `text` (string indices, `end`
 * exclusive): its header line starts at `headerStart`, its own text (what
 * the model reads of it, imports inlined) is `text.slice(start, end)`.
 */
export interface InstructionSpan {
  /** Absolute path. */
  path: string
  /** As the header names it: relative to the root, `~/…` for a global file. */
  shown: string
  headerStart: number
  start: number
  end: number
  /** Inlined imports inside `start…end`, in the same indices. */
  imports?: { path: string; start: number; end: number }[]
}

/**
 * The prompt text: blocks in load order, each a header line then the body
 * (ending with a line break), separated by one blank line; with the span of
 * each block, so reports can name the file a part of the prompt came from.
 */
export function renderBlocks(blocks: readonly Block[]): MappedText & { spans: InstructionSpan[] } {
  let text = ''
  const spans: InstructionSpan[] = []
  const map: SourceSpan[] = []
  for (const [i, block] of blocks.entries()) {
    if (i > 0) text += '\n'
    const body = block.body.length === 0 || block.body.endsWith('\n') ? block.body : `${block.body}\n`
    const headerStart = text.length
    text += `${header(block.shown, block.note)}\n`
    const start = text.length
    map.push(...shiftSpans(block.map ?? [], start))
    text += body
    // The file's own text ends before the line break every block ends with.
    const end = body.endsWith('\n') ? text.length - 1 : text.length
    const span: InstructionSpan = { path: block.path, shown: block.shown, headerStart, start, end }
    if (block.imports !== undefined && block.imports.length > 0) {
      span.imports = block.imports
        .map((imp) => ({
          path: imp.path,
          start: start + Math.min(imp.start, end - start),
          end: start + Math.min(imp.end, end - start),
        }))
        .filter((imp) => imp.end > imp.start)
    }
    spans.push(span)
  }
  return { text, spans, map }
}
