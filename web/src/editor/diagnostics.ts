/** Template diagnostics (1-based line and UTF-16 column) as CodeMirror lint marks. */
import type { Diagnostic as LintDiagnostic } from '@codemirror/lint'
import type { Text } from '@codemirror/state'
import type { Diagnostic, Dialect } from '../api-types.js'
import { tokenize } from './tags.js'

/** The document offset of a line and column, clamped into the document. */
export function offsetOf(doc: Text, line: number, column: number): number {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines))
  return Math.min(l.from + Math.max(0, column - 1), l.to)
}

/**
 * Each diagnostic marked from its position to the end of the tag that
 * starts there (a diagnostic points at a tag's opening `{{` or `[`), or one
 * character when no tag starts there.
 */
export function toLint(doc: Text, diagnostics: readonly Diagnostic[], dialect: Dialect): LintDiagnostic[] {
  const { tags, malformed } = tokenize(doc.toString(), dialect)
  const ends = new Map<number, number>()
  for (const t of [...tags, ...malformed]) ends.set(t.start, t.end)
  return diagnostics.map((d) => {
    const from = offsetOf(doc, d.line, d.column)
    const to = Math.min(doc.length, ends.get(from) ?? from + 1)
    return {
      from,
      to: Math.max(to, from),
      severity: 'error',
      message: `${d.code}: ${d.message}`,
      source: d.code,
    }
  })
}
