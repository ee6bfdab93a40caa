import type { FragmentError } from '../../presets/index.js'
import { TemplateError } from '../../template/index.js'
import { shown } from './paths.js'

/** Where a section's text comes from, so a position in it can be named in its file. */
export interface SectionOrigin {
  /** Absolute path, or `presets/…` for built-in words. */
  file: string
  builtin: boolean
  /** The file line the section's text (the fragment body) starts on. */
  bodyLine: number
}

/** Why the prompt could not be compiled, located in a file when possible. */
export interface BuildFailure {
  code: string
  /** One line: `file:line:col: what`, or just what. */
  message: string
  /** What, without the location. */
  detail: string
  file?: string
  line?: number
  column?: number
}

function located(
  code: string,
  file: string,
  line: number,
  column: number,
  detail: string,
  root: string,
): BuildFailure {
  return { code, message: `${shown(file, root)}:${line}:${column}: ${detail}`, detail, file, line, column }
}

/** The first front-matter problem of the template file, as the reason there is no prompt. */
export function frontMatterFailure(errors: readonly FragmentError[], root: string): BuildFailure | undefined {
  const first = errors[0]
  return first === undefined
    ? undefined
    : located(first.code, first.file, first.line, first.column, first.message, root)
}

/**
 * Why building or compiling failed. A `TemplateError` names a section and a
 * position in its text; when that section comes from a file, the position
 * becomes a line and column of the file (the body's line offset added).
 */
export function failureOf(
  error: unknown,
  origins: ReadonlyMap<string, SectionOrigin>,
  root: string,
): BuildFailure {
  if (error instanceof TemplateError && error.template !== undefined) {
    const origin = origins.get(error.template)
    if (origin !== undefined) {
      const line = error.line + origin.bodyLine - 1
      return located(error.code, origin.file, line, error.column, `${error.detail} [${error.code}]`, root)
    }
  }
  if (!(error instanceof Error)) throw error
  const { code } = error as Error & { code?: unknown }
  return { code: typeof code === 'string' ? code : 'build', message: error.message, detail: error.message }
}
