import { compileTemplate, type Insertion, renderWithInsertions } from '../template/index.js'
import type { AssembledSection, PromptAssembly } from './types.js'

/** One section after interpolation and whitespace normalisation, never empty. */
export interface RenderedSection {
  section: AssembledSection
  text: string
  /** Where each non-empty inserted value landed in `text`, after normalisation; values normalised away are left out. */
  insertions: Insertion[]
}

/** How many characters of leading blank lines (spaces or tabs, each with its line end) `text` starts with. */
function leadingBlankLines(text: string): number {
  let start = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x20 || c === 0x09) i++
    else if (c === 0x0a) start = ++i
    else break
  }
  return start
}

/** `offset` moved to where it lands once every CRLF (at `crlfAt`) became LF. */
function withoutCr(crlfAt: readonly number[], offset: number): number {
  let removed = 0
  while (removed < crlfAt.length && crlfAt[removed]! < offset) removed++
  return offset - removed
}

/**
 * The insertions of `raw` moved into its normalised text: CRLF → LF, then
 * `lead` characters cut at the start and the rest clamped to `length`.
 */
function normaliseInsertions(
  raw: string,
  insertions: Insertion[],
  lead: number,
  length: number,
): Insertion[] {
  if (insertions.length === 0) return insertions
  const crlfAt: number[] = []
  for (let i = raw.indexOf('\r\n'); i !== -1; i = raw.indexOf('\r\n', i + 2)) crlfAt.push(i)
  const out: Insertion[] = []
  for (const { key, start, end } of insertions) {
    const from = Math.min(Math.max(withoutCr(crlfAt, start) - lead, 0), length)
    const to = Math.min(Math.max(withoutCr(crlfAt, end) - lead, 0), length)
    if (to > from) out.push({ key, start: from, end: to })
  }
  return out
}

/**
 * Interpolates and normalises each section (SPEC §4): each section in its
 * dialect's default mode (mustache strict, bracket lenient), errors naming
 * the section; CRLF becomes LF; leading blank lines and trailing whitespace
 * go, the first line's indentation stays; empty sections are dropped.
 */
export function renderSections(assembly: PromptAssembly): RenderedSection[] {
  const rendered: RenderedSection[] = []
  for (const section of assembly.sections) {
    const template = compileTemplate(section.text, { dialect: section.dialect, name: section.name })
    const raw = renderWithInsertions(template, assembly.variables)
    let text = raw.text
    if (text.includes('\r\n')) text = text.replaceAll('\r\n', '\n')
    const lead = leadingBlankLines(text)
    text = text.slice(lead).trimEnd()
    if (text.length > 0) {
      rendered.push({
        section,
        text,
        insertions: normaliseInsertions(raw.text, raw.insertions, lead, text.length),
      })
    }
  }
  return rendered
}

/** The separator between two rendered sections. */
export const SECTION_SEPARATOR = '\n\n'

/**
 * The full system prompt text of an assembly: every non-empty section,
 * interpolated and normalised, joined with one blank line; `''` when all
 * sections render empty (send no system prompt then).
 */
export function renderPrompt(assembly: PromptAssembly): string {
  return renderSections(assembly)
    .map((r) => r.text)
    .join(SECTION_SEPARATOR)
}
