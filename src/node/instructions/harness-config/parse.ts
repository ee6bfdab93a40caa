/**
 * Parsing of harness configuration files. The parsers load on first use
 * (a `--help` never pays for them) and a failure is reported by position
 * only: a parser's own message quotes the offending text, which may be a key.
 */
import { createRequire } from 'node:module'
import {
  bracketDepthExceeded,
  MAX_NESTING_DEPTH,
  tooDeepText,
  valueDepthExceeds,
} from '../../../shared/nesting-depth.js'

// jsonc-parser ships a UMD entry that requires its own files by computed
// paths: the command's bundle keeps it external and loads it with `require`
// (a dynamic `import()` has no loader inside the code-cached bundle).
const requireCjs = createRequire(import.meta.url)

/**
 * A parsed document, or where it stops being valid (1-based line and
 * column); `problem`, when set, says what is wrong there in place of "not
 * valid": a nesting past the limit.
 */
export type Parsed =
  | { ok: true; data: unknown }
  | { ok: false; line: number; column: number; problem?: string }

/** TOML (Codex's `config.toml`) through smol-toml; nesting past the limit is refused before parsing (inline arrays and tables) and after (dotted keys, table headers). */
export async function parseToml(text: string): Promise<Parsed> {
  // The document is a table: its brackets start at the second level.
  const deep = tooDeep(text, bracketDepthExceeded(text, 'toml', MAX_NESTING_DEPTH - 1))
  if (deep !== undefined) return deep
  const { parse, TomlError } = await import('smol-toml')
  let data: unknown
  try {
    data = parse(text)
  } catch (error) {
    if (error instanceof TomlError) return { ok: false, line: error.line, column: error.column }
    return { ok: false, line: 1, column: 1 }
  }
  if (valueDepthExceeds(data)) return { ok: false, line: 1, column: 1, problem: tooDeepText() }
  return { ok: true, data }
}

/**
 * JSON, with comments and trailing commas when `comments` (Gemini's
 * `settings.json` and opencode's config allow both), through jsonc-parser;
 * strict JSON otherwise (Claude Code's files).
 */
export async function parseJson(text: string, comments: boolean): Promise<Parsed> {
  const deep = tooDeep(text, bracketDepthExceeded(text, 'json'))
  if (deep !== undefined) return deep
  if (!comments) {
    try {
      return { ok: true, data: JSON.parse(text) as unknown }
    } catch (error) {
      // V8 ends its message with the offset ("… at position 12", newer versions add " (line 2 column 5)");
      // take it from there only: earlier, a message may quote the file's own text.
      const message = String((error as Error).message)
      const at = / at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message)
      return { ok: false, ...position(text, at === null ? 0 : Number(at[1])) }
    }
  }
  const { parse } = requireCjs('jsonc-parser') as typeof import('jsonc-parser')
  const errors: import('jsonc-parser').ParseError[] = []
  let data: unknown
  try {
    data = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  } catch (error) {
    // The scan above bounds the recursion; a stack that overflows anyway must not end the command.
    if (error instanceof RangeError) return { ok: false, line: 1, column: 1, problem: tooDeepText() }
    throw error
  }
  if (errors.length > 0) return { ok: false, ...position(text, errors[0]!.offset) }
  return { ok: true, data }
}

/** The refusal of a text whose nesting goes past the limit at `offset` (-1: it does not). */
function tooDeep(text: string, offset: number): Parsed | undefined {
  return offset === -1 ? undefined : { ok: false, ...position(text, offset), problem: tooDeepText() }
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - before.lastIndexOf('\n') }
}

/** The value at a dotted path of plain objects (`context.fileName`); `undefined` when absent. */
export function at(data: unknown, path: readonly string[]): unknown {
  let here = data
  for (const key of path) {
    if (typeof here !== 'object' || here === null || Array.isArray(here)) return undefined
    if (!Object.hasOwn(here, key)) return undefined
    here = (here as Record<string, unknown>)[key]
  }
  return here
}
