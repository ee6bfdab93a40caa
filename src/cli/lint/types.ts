import { LineCounter } from '../../shared/line-counter.js'

/** How bad a finding is: an `error` fails `sysprompt lint` (exit 1), a `warning` does not. */
export type Severity = 'error' | 'warning'

/**
 * One thing `sysprompt lint` reports (SPEC §9). `file`, `line` and
 * `column` (1-based, UTF-16 code units) point into the file itself; a
 * finding about the prompt as a whole has no file and may name a `section`.
 */
export interface Finding {
  severity: Severity
  code: string
  message: string
  file?: string
  line?: number
  column?: number
  section?: string
}

/** A finding located by a string index into a text, before it is given a line and column. */
export interface TextHit {
  offset: number
  severity: Severity
  code: string
  message: string
}

/** A scanner over included text: linear in the text, no backtracking regular expressions. */
export type TextScanner = (text: string) => TextHit[]

/** Locates hits in `file`: sorted by offset, so one pass of a line counter places them all. */
export function locate(file: string, text: string, hits: readonly TextHit[]): Finding[] {
  const lines = new LineCounter(text)
  return [...hits]
    .sort((a, b) => a.offset - b.offset)
    .map((hit) => ({
      severity: hit.severity,
      code: hit.code,
      message: hit.message,
      file,
      ...lines.at(hit.offset),
    }))
}

/** Whether a UTF-16 code unit is an ASCII letter, digit or `_` (a word character for boundaries). */
export function isWordUnit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
}
