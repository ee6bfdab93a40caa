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

/** A line and column, both 1-based; columns count UTF-16 code units. */
export interface Position {
  line: number
  column: number
}

/**
 * Maps string offsets to line/column. `\r\n`, `\n` and `\r` each end a line.
 * Offsets must be asked for in non-decreasing order, which keeps a whole
 * diagnostic list linear in the source.
 */
export class LineCounter {
  private offset = 0
  private line = 1
  private lineStart = 0

  constructor(private readonly text: string) {}

  at(target: number): Position {
    if (target < this.offset) {
      this.offset = 0
      this.line = 1
      this.lineStart = 0
    }
    const text = this.text
    for (let i = this.offset; i < target; i++) {
      const c = text.charCodeAt(i)
      if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
        this.line++
        this.lineStart = i + 1
      }
    }
    this.offset = target
    return { line: this.line, column: target - this.lineStart + 1 }
  }
}

/** The line and column of `offset` in `text`. */
export function positionOf(text: string, offset: number): Position {
  return new LineCounter(text).at(offset)
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
    super(`${where} line ${init.line}, column ${init.column}: ${init.detail} [${init.code}]`, {
      cause: init.cause,
    })
    this.detail = init.detail
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
