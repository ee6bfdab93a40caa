import { relative, sep } from 'node:path'
import { type FileSystemAdapter, nodeAdapters } from '../adapters.js'
import { type ReadOutcome, readCheckedFile, readConfinedFile, readFailureText } from '../safe-read.js'
import { ProjectError } from './errors.js'

/** The default of `maxFileBytes` (`--max-file-bytes`): the cap on template, lock and tools files (SPEC §9). */
export const DEFAULT_MAX_FILE_BYTES = 1 << 20

/** A file the command line reads, and how. */
export interface CliFileRead {
  /** Absolute path. */
  path: string
  /** Files a repository names (its template, its lock) are confined to the project root; `null` for a file the user named. */
  root: string | null
  maxBytes: number
  fs?: FileSystemAdapter
}

/** A refused read: why, in one line naming the file. */
export interface CliFileRefusal {
  reason: Extract<ReadOutcome, { ok: false }>['reason']
  /** `<path> <reason>`, e.g. `.sysprompt/template.md is binary (…), not text`. */
  message: string
}

/**
 * The one way in for every file the command line reads (template files,
 * `sysprompt.lock`, `--tools`, `diff` inputs): regular files only (never a
 * FIFO or device, never blocking), refused over `maxBytes`
 * (`--max-file-bytes`), refused when binary, and confined to the project
 * root when the repository names the file. A file named on the command line
 * may live anywhere but gets the same type, size and binary checks.
 */
export async function readCliFile(
  read: CliFileRead,
  shownAs: string,
): Promise<{ ok: true; text: string } | ({ ok: false } & CliFileRefusal)> {
  const fs = read.fs ?? nodeAdapters().fs
  const options = { maxBytes: read.maxBytes, oversize: 'refuse' as const, fs }
  const outcome =
    read.root === null
      ? await readCheckedFile(read.path, options)
      : await readConfinedFile(relative(read.root, read.path).split(sep).join('/'), read.root, {
          ...options,
          roots: [read.root],
        })
  if (outcome.ok) return { ok: true, text: outcome.text }
  return {
    ok: false,
    reason: outcome.reason,
    message: `${shownAs} ${readFailureText(outcome, read.maxBytes)}`,
  }
}

/** {@link readCliFile}, a refusal thrown as a `ProjectError` coded `file-<reason>` with `todo` as its advice. */
export async function readCliFileOrThrow(read: CliFileRead, shownAs: string, todo: string): Promise<string> {
  const result = await readCliFile(read, shownAs)
  if (result.ok) return result.text
  throw new ProjectError(`file-${result.reason}`, result.message, todo)
}

/**
 * A JSON parse error's message without the excerpt of the input that V8
 * quotes (`Unexpected token 'k', "key=sk-…" is not valid JSON`), so a
 * broken or hostile file never has its bytes echoed; the position is kept.
 */
export function jsonErrorWithoutExcerpt(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const position = /at position (\d+)/.exec(message)?.[1]
  const line = /line (\d+) column (\d+)/.exec(message)
  if (/Unexpected end of JSON input/.test(message)) return 'it ends too early'
  if (line !== null) return `a syntax error at line ${line[1]}, column ${line[2]}`
  if (position !== undefined) return `a syntax error at byte ${position}`
  return 'a syntax error'
}
