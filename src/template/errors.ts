import { type Position, positionOf } from '../shared/line-counter.js'

/** Stable codes of template errors and diagnostics (SPEC §2). */
export type TemplateErrorCode =
  | 'unknown-variable'
  | 'valueless-variable'
  | 'malformed-reference'
  | 'unclosed-block'
  | 'stray-tag'

/** What strict mode would have rejected, as lenient mode reports it. Positions are 1-based UTF-16 code units. */
export interface Diagnostic {
  readonly code: TemplateErrorCode
  readonly message: string
  readonly line: number
  readonly column: number
}

/**
 * `text` with its line breaks (`\r`, `\n`, U+2028, U+2029) written as escapes,
 * so that a message quoting user text stays on one line.
 */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]/g, (c) =>
    c === '\r' ? '\\r' : c === '\n' ? '\\n' : c === '\u2028' ? '\\u2028' : '\\u2029',
  )
}

/** Longest piece of source a message quotes before cutting it short with `…`. */
const MAX_EXCERPT = 60

/** A piece of source fit to quote in a one-line message: line breaks escaped, long text shortened. */
export function excerpt(text: string): string {
  if (text.length <= MAX_EXCERPT) return oneLine(text)
  let cut = MAX_EXCERPT - 1
  const last = text.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut-- // never split a surrogate pair
  return `${oneLine(text.slice(0, cut))}…`
}

interface TemplateErrorInit extends Position {
  code: TemplateErrorCode
  template: string | undefined
  /** The problem and what to do about it, without the location. */
  detail: string
  known?: readonly string[]
  cause?: unknown
}

/**
 * A template that cannot be compiled or rendered in strict mode.
 *
 * `line` and `column` point at the opening `{{` or `[` of the offending tag;
 * `template` is the template's name (a section name when the registry
 * renders it); `known` lists the known keys for an unknown one, in code-unit
 * order. The message says all of it in one line.
 */
export class TemplateError extends Error {
  override readonly name = 'TemplateError'
  readonly code: TemplateErrorCode
  readonly line: number
  readonly column: number
  readonly template: string | undefined
  readonly known: readonly string[] | undefined
  /** The problem alone, without the location prefix that `message` carries. */
  readonly detail: string

  constructor(init: TemplateErrorInit) {
    const where = init.template === undefined ? 'template' : `template "${init.template}"`
    // One line whatever the name, the known keys or the quoted source hold (SPEC §2).
    super(oneLine(`${where} line ${init.line}, column ${init.column}: ${init.detail} [${init.code}]`), {
      cause: init.cause,
    })
    this.detail = oneLine(init.detail)
    this.code = init.code
    this.line = init.line
    this.column = init.column
    this.template = init.template
    this.known = init.known
  }

  /** An error located at `offset` of `source`. */
  static at(source: string, offset: number, init: Omit<TemplateErrorInit, 'line' | 'column'>): TemplateError {
    return new TemplateError({ ...init, ...positionOf(source, offset) })
  }
}
