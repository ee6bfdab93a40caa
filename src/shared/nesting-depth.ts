import type * as YamlModule from 'yaml'

/**
 * Nesting limits for the parsers of repository input. jsonc-parser recurses
 * once per `[` or `{`, and `yaml`'s composer once per collection: 5 000
 * nested brackets in a committed `opencode.json` overflowed the stack and
 * took every command down. These checks run before the recursive parser,
 * in one linear pass, and give the offset where the text first goes past
 * the limit, so the caller names the file, the place and the limit.
 */

/** The deepest nesting of arrays and objects (mappings, sequences, tables) read from a repository's files. */
export const MAX_NESTING_DEPTH = 256

/** What a too-deep file is told, after its name and position. */
export function tooDeepText(limit: number = MAX_NESTING_DEPTH): string {
  return `nests lists and objects deeper than ${limit} levels, the limit for files read from a repository`
}

/** The bracket syntaxes scanned: JSON (comments and trailing commas allowed, as jsonc-parser reads it) or TOML. */
export type BracketSyntax = 'json' | 'toml'

const LF = 10
const CR = 13

/**
 * The offset of the first `[` or `{` that opens a level past `limit`, or -1.
 * Brackets inside strings and comments do not count. A closing bracket
 * closes a level only when it matches the innermost open one: jsonc-parser
 * skips a stray closer while recovering from an error, so counting it would
 * let `[}[}[}…` nest without the count growing. The scan may count more
 * than a parser nests in an invalid file, never less.
 */
export function bracketDepthExceeded(
  text: string,
  syntax: BracketSyntax,
  limit: number = MAX_NESTING_DEPTH,
): number {
  const open: number[] = []
  const length = text.length
  let i = 0
  while (i < length) {
    const ch = text.charCodeAt(i)
    if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) {
      if (open.length === limit) return i
      open.push(ch)
      i++
    } else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) {
      if (open.length > 0 && open[open.length - 1] === ch - 2) open.pop()
      i++
    } else if (ch === 0x22 /* " */ || (syntax === 'toml' && ch === 0x27) /* ' */) {
      i = syntax === 'toml' ? skipTomlString(text, i) : skipJsonString(text, i)
    } else if (syntax === 'json' && ch === 0x2f /* / */) {
      i = skipJsonComment(text, i)
    } else if (syntax === 'toml' && ch === 0x23 /* # */) {
      i = lineEnd(text, i)
    } else {
      i++
    }
  }
  return -1
}

/** Past a JSON string as jsonc-parser scans it: a backslash takes the next character, a line break ends it. */
function skipJsonString(text: string, start: number): number {
  let i = start + 1
  while (i < text.length) {
    const ch = text.charCodeAt(i)
    if (ch === 0x22) return i + 1
    if (ch === 0x5c /* \ */) i += 2
    else if (ch === LF || ch === CR) return i
    else i++
  }
  return text.length
}

/** Past a `//` or `/* … *\/` comment (an unclosed one runs to the end); a lone `/` is one character. */
function skipJsonComment(text: string, start: number): number {
  const next = text.charCodeAt(start + 1)
  if (next === 0x2f) return lineEnd(text, start)
  if (next !== 0x2a /* * */) return start + 1
  const end = text.indexOf('*/', start + 2)
  return end === -1 ? text.length : end + 2
}

/** Past a TOML string: `"…"` and `'…'` end at a line break, `"""…"""` and `'''…'''` span lines; only `"` strings have escapes. */
function skipTomlString(text: string, start: number): number {
  const quote = text.charCodeAt(start)
  const escapes = quote === 0x22
  const multi = text.charCodeAt(start + 1) === quote && text.charCodeAt(start + 2) === quote
  let i = start + (multi ? 3 : 1)
  while (i < text.length) {
    const ch = text.charCodeAt(i)
    if (ch === quote) {
      if (!multi) return i + 1
      if (text.charCodeAt(i + 1) === quote && text.charCodeAt(i + 2) === quote) {
        // Up to two more quotes may close it (`""""` ends with a quote in the value).
        let end = i + 3
        while (end < i + 5 && text.charCodeAt(end) === quote) end++
        return end
      }
      i++
    } else if (escapes && ch === 0x5c) i += 2
    else if (!multi && (ch === LF || ch === CR)) return i
    else i++
  }
  return text.length
}

function lineEnd(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (ch === LF || ch === CR) return i
  }
  return text.length
}

/** The parts of the `yaml` package the YAML check runs on: its lexer and its CST parser, neither of which recurses. */
export type YamlStages = Pick<typeof YamlModule, 'Lexer' | 'Parser'>

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection'])

/** What the check reads of a CST token: its type and, for a flow collection, its opening bracket and items. */
interface StackToken {
  type: string
  start?: unknown
  items?: readonly {
    start: readonly { type: string }[]
    sep?: readonly { type: string }[]
    key?: unknown
    value?: unknown
  }[]
}

/**
 * The offset where a YAML text first nests collections (block or flow
 * mappings and sequences) deeper than `limit`, or -1. It runs `yaml`'s own
 * lexer and CST parser, which keep their nesting on an array rather than
 * on the call stack, so the depth counted is the one the composer recurses
 * to, with no second grammar to keep in step. A pair whose key is itself a
 * collection (`[a]: 1`) is wrapped in its mapping only after the key is
 * read, so the composed value can nest up to twice the count: check the
 * value too (`valueDepthExceeds`) where it matters.
 */
export function yamlDepthExceeded(text: string, yaml: YamlStages, limit: number = MAX_NESTING_DEPTH): number {
  const parser = new yaml.Parser()
  for (const lexeme of new yaml.Lexer().lex(text)) {
    for (const _token of parser.next(lexeme)) {
      // Tokens are only drained here; the depth is read from the parser's stack.
    }
    // Each stack entry is at most two levels: count them only when that could pass the limit.
    if (parser.stack.length * 2 > limit && countLevels(parser.stack as StackToken[]) > limit) {
      return parser.offset
    }
  }
  return -1
}

/** The levels of the collections open on the CST parser's stack (the document and scalars are none). */
function countLevels(stack: readonly StackToken[]): number {
  let count = 0
  for (const token of stack) {
    if (!COLLECTIONS.has(token.type)) continue
    count++
    // A pair inside a flow sequence (`[a: 1]`, `[? a]`, and `[""a]`, which the composer reads as a pair
    // missing its `:`) is a mapping of its own, with no token of its own.
    const item = token.items?.at(-1)
    if (token.type === 'flow-collection' && isOpening(token.start, '[') && item !== undefined) {
      if (
        item.start.some((t) => t.type === 'explicit-key-ind') ||
        item.sep?.some((t) => t.type === 'map-value-ind') ||
        (item.key !== undefined && item.key !== null && item.value !== undefined && item.value !== null)
      )
        count++
    }
  }
  return count
}

function isOpening(start: unknown, bracket: string): boolean {
  return typeof start === 'object' && start !== null && (start as { source?: unknown }).source === bracket
}

/** The parts of the `yaml` package that tell composed nodes apart. */
export type YamlGuards = Pick<typeof YamlModule, 'isAlias' | 'isMap' | 'isPair' | 'isScalar' | 'isSeq'>

/** What is wrong with a composed YAML value, and where (an offset in its text). */
export interface YamlValueProblem {
  kind: 'too-deep' | 'complex-key'
  offset: number
}

/**
 * The first problem of a composed YAML value, walked with an explicit stack:
 * collections nested deeper than `limit` (a pair in a sequence is a mapping
 * of its own), or a key that is not plain text. Keys that are collections
 * or aliases are refused before `toJS`, which turns each into text by
 * writing it out again, its own keys included: 200 nested ones took minutes.
 */
export function yamlValueProblem(
  node: unknown,
  yaml: YamlGuards,
  limit: number = MAX_NESTING_DEPTH,
): YamlValueProblem | undefined {
  const pending: { node: unknown; depth: number }[] = [{ node, depth: 0 }]
  while (pending.length > 0) {
    const { node: here, depth } = pending.pop()!
    const seq = yaml.isSeq(here)
    if (!seq && !yaml.isMap(here)) continue
    if (depth === limit) return { kind: 'too-deep', offset: offsetOf(here) }
    for (const item of here.items as unknown[]) {
      if (!yaml.isPair(item)) {
        pending.push({ node: item, depth: depth + 1 })
        continue
      }
      const key = item.key
      if (key !== null && (yaml.isAlias(key) || !yaml.isScalar(key)))
        return { kind: 'complex-key', offset: offsetOf(key) }
      // A pair directly in a sequence (`[a: 1]`) is a one-pair mapping: a level of its own.
      if (seq && depth + 1 === limit) return { kind: 'too-deep', offset: offsetOf(key) }
      pending.push({ node: item.value, depth: seq ? depth + 2 : depth + 1 })
    }
  }
  return undefined
}

function offsetOf(node: unknown): number {
  return (node as { range?: readonly number[] } | null)?.range?.[0] ?? 0
}

/**
 * Whether a parsed value nests arrays and objects deeper than `limit`:
 * for what a parser builds without recursing (TOML's dotted keys and table
 * headers), walked with an explicit stack.
 */
export function valueDepthExceeds(value: unknown, limit: number = MAX_NESTING_DEPTH): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }]
  while (pending.length > 0) {
    const { value: here, depth } = pending.pop()!
    if (typeof here !== 'object' || here === null || here instanceof Date) continue
    if (depth === limit) return true
    for (const child of Object.values(here)) pending.push({ value: child, depth: depth + 1 })
  }
  return false
}
