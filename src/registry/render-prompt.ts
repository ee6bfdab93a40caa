import { compileTemplate } from '../template/index.js'
import type { AssembledSection, PromptAssembly } from './types.js'

/** One section after interpolation and whitespace normalisation, never empty. */
export interface RenderedSection {
  section: AssembledSection
  text: string
}

/** Leading lines that hold only spaces or tabs, each with its line end. */
function stripLeadingBlankLines(text: string): string {
  let start = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x20 || c === 0x09) i++
    else if (c === 0x0a) start = ++i
    else break
  }
  return start === 0 ? text : text.slice(start)
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
    let text = template.render(assembly.variables)
    if (text.includes('\r\n')) text = text.replaceAll('\r\n', '\n')
    text = stripLeadingBlankLines(text).trimEnd()
    if (text.length > 0) rendered.push({ section, text })
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
