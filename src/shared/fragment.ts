import type * as YamlModule from 'yaml'
import type { Document, Node } from 'yaml'
import { hashText } from './hash.js'
import { positionOf } from './line-counter.js'
import { MAX_NESTING_DEPTH, tooDeepText, yamlDepthExceeded, yamlValueProblem } from './nesting-depth.js'
import type { Dialect, Stability } from './vocabulary.js'

/**
 * A prompt fragment (SPEC §6): a Markdown body with the fields of its YAML
 * front matter. `id` is the front matter's `id`, else derived from the path
 * (`identity/default.md` → `identity.default`). `stability` defaults to
 * `static`; `dynamic` is `stability === 'turn'`, the flag manifests carry.
 * `bodyLine` is the file line the body starts on, so a position inside the
 * body maps to the file by adding `bodyLine - 1` to its line. Fields the
 * spec does not define are kept, as YAML gave them, in `extra`.
 */
export interface Fragment {
  id: string
  /** The file it came from, as the caller named it (`loadFragments` gives an absolute path). */
  source: string
  /** The path inside its fragment directory, `/`-separated: what manifests and lock files record. */
  relPath: string
  /** The text after the closing `---` line, line endings normalised to `\n`. */
  body: string
  bodyLine: number
  /** `sha256:` + hex of the file's bytes. */
  contentHash: string
  stability: Stability
  dynamic: boolean
  order?: number
  priority?: number
  models?: string[]
  paths?: string[]
  excludes?: string[]
  enabled?: boolean
  description?: string
  dialect?: Dialect
  extra: Record<string, unknown>
}

/** Stable codes of fragment problems. */
export type FragmentErrorCode =
  | 'unclosed-front-matter'
  | 'yaml-syntax'
  | 'tab-indentation'
  | 'not-a-mapping'
  | 'invalid-field'
  | 'unknown-field'
  | 'duplicate-id'
  | 'too-deep'
  | 'unreadable'

/** One problem in a fragment file, as data: `line` and `column` (1-based) are positions in the file itself. */
export interface FragmentError {
  file: string
  line: number
  column: number
  code: FragmentErrorCode
  /** What is wrong and what to do, without the location. */
  message: string
}

export interface ParseFragmentOptions {
  /** Names the file in the fragment and in every error. */
  file: string
  /** The id when the front matter has none; defaults to one derived from `relPath`. */
  id?: string
  /** The path inside its fragment directory; defaults to `file`. */
  relPath?: string
  /** Defaults to the hash of `text`'s UTF-8 bytes; a loader passes the hash of the bytes it read. */
  contentHash?: string
}

export interface ParseFragmentResult {
  /** Absent when there are errors. */
  fragment?: Fragment
  errors: FragmentError[]
  /** Where each front-matter field is written (its key), for tools that point at one. */
  positions: Record<string, { line: number; column: number }>
}

/** What front matter is read with: the parts of the `yaml` package sysprompt uses. */
export type FrontMatterYaml = Pick<
  typeof YamlModule,
  'parse' | 'parseDocument' | 'isAlias' | 'isMap' | 'isPair' | 'isScalar' | 'isSeq' | 'Lexer' | 'Parser'
>

let yamlLoader: (() => FrontMatterYaml) | undefined
let yamlModule: FrontMatterYaml | undefined

/**
 * Registers how to load the YAML parser the first time a front matter is
 * read (`sysprompt/node` registers a synchronous `require` of the `yaml`
 * package): a file without front matter, and a command that reads none,
 * never loads it. Returns a disposer that removes this loader.
 */
export function registerFrontMatterYaml(load: () => FrontMatterYaml): () => void {
  yamlLoader = load
  return () => {
    if (yamlLoader === load) yamlLoader = undefined
  }
}

/**
 * Loads the YAML parser where no synchronous loader is registered (browsers,
 * Deno, workers): `await loadFrontMatterYaml()` once before parsing a
 * fragment that has front matter.
 */
export async function loadFrontMatterYaml(): Promise<void> {
  yamlModule ??= await import('yaml')
}

/** The YAML parser, loaded by the registered loader on first use; throws naming the call to make when there is none. */
export function frontMatterYaml(): FrontMatterYaml {
  if (yamlModule !== undefined) return yamlModule
  if (yamlLoader === undefined) {
    throw new Error(
      'the YAML parser for front matter is not loaded: call `await loadFrontMatterYaml()` once before ' +
        'parsing fragments (import "sysprompt/node" loads it by itself)',
    )
  }
  yamlModule = yamlLoader()
  return yamlModule
}

/** `file:line:column: message`, the form editors and terminals turn into links. */
export function formatFragmentError(error: FragmentError): string {
  return `${error.file}:${error.line}:${error.column}: ${error.message}`
}

/** The id a fragment gets from its path inside its directory: `identity/default.md` → `identity.default`. */
export function fragmentIdFromPath(relPath: string): string {
  return relPath
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\.md$/i, '')
    .split('/')
    .filter((part) => part.length > 0)
    .join('.')
}

const FENCE = /^---[ \t]*$/

type Split =
  | { kind: 'ok'; frontMatter: string | undefined; body: string; bodyLine: number }
  | { kind: 'unclosed' }

/** Cuts the front matter off: it must open on the first line and close on a line of its own. */
function splitFrontMatter(text: string): Split {
  const src = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n')
  const firstEnd = src.indexOf('\n')
  if (!FENCE.test(firstEnd === -1 ? src : src.slice(0, firstEnd))) {
    return { kind: 'ok', frontMatter: undefined, body: src, bodyLine: 1 }
  }
  if (firstEnd === -1) return { kind: 'unclosed' }
  let start = firstEnd + 1
  for (let line = 2; start < src.length; line++) {
    const found = src.indexOf('\n', start)
    const end = found === -1 ? src.length : found
    if (FENCE.test(src.slice(start, end))) {
      const body = found === -1 ? '' : src.slice(found + 1)
      return { kind: 'ok', frontMatter: src.slice(firstEnd + 1, start), body, bodyLine: line + 1 }
    }
    start = end + 1
  }
  return { kind: 'unclosed' }
}

/**
 * Parses one fragment file. Never throws: every problem comes back in
 * `errors` with its line and column in the file (the front matter starts on
 * line 2), and a fragment with errors is not returned. Unknown fields are
 * kept in `extra`, except near-misses of known ones (`path` for `paths`),
 * which are errors because they would silently change what the fragment does.
 */
export function parseFragment(text: string, options: ParseFragmentOptions): ParseFragmentResult {
  const file = options.file
  const split = splitFrontMatter(text)
  if (split.kind === 'unclosed') {
    const message =
      'the front matter opened by `---` on line 1 is never closed: end it with a line holding only `---`'
    return { errors: [{ file, line: 1, column: 1, code: 'unclosed-front-matter', message }], positions: {} }
  }
  // Outside the `try`: a missing parser is the caller's setup, not a problem of this file.
  const yaml = split.frontMatter === undefined ? undefined : frontMatterYaml()
  let read: FrontMatter
  try {
    read =
      split.frontMatter === undefined || yaml === undefined
        ? emptyFrontMatter()
        : readFrontMatter(split.frontMatter, file, yaml)
  } catch (cause) {
    // The YAML library can throw on pathological input; a user's file must never crash a loader.
    const message = `cannot read the front matter (${cause instanceof Error ? cause.message : String(cause)})`
    return { errors: [{ file, line: 2, column: 1, code: 'yaml-syntax', message }], positions: {} }
  }
  if (read.errors.length > 0) return { errors: read.errors, positions: read.positions }
  const { id, dynamic, stability, ...optional } = read.fields
  const relPath = options.relPath ?? file
  const effective: Stability = stability ?? (dynamic === true ? 'turn' : 'static')
  const fragment: Fragment = {
    id: id ?? options.id ?? fragmentIdFromPath(relPath),
    source: file,
    relPath,
    body: split.body,
    bodyLine: split.bodyLine,
    contentHash: options.contentHash ?? hashText(text),
    stability: effective,
    dynamic: effective === 'turn',
    ...optional,
    extra: read.extra,
  }
  return { fragment, errors: [], positions: read.positions }
}

/** The front-matter fields as written (`dynamic` still separate from `stability`). */
type Fields = Partial<Pick<Fragment, keyof typeof FIELD_SPECS>>

interface FrontMatter {
  fields: Fields
  extra: Record<string, unknown>
  errors: FragmentError[]
  positions: Record<string, { line: number; column: number }>
}

function emptyFrontMatter(): FrontMatter {
  return { fields: {}, extra: {}, errors: [], positions: {} }
}

/** What a field accepts: a kind of value, or a list of allowed words; `example` goes into the message. */
type FieldSpec =
  | { kind: 'word' | 'text' | 'number' | 'boolean' | 'list' | 'list-or-empty'; example: string }
  | string[]

const FIELD_SPECS = {
  id: { kind: 'word', example: '"identity.default"' },
  order: { kind: 'number', example: '-100' },
  priority: { kind: 'number', example: '50' },
  stability: ['static', 'session', 'turn'],
  dynamic: { kind: 'boolean', example: 'true' },
  enabled: { kind: 'boolean', example: 'false' },
  description: { kind: 'text', example: '"one line for catalogs"' },
  dialect: ['mustache', 'bracket'],
  models: { kind: 'list', example: '["gpt-5*"]' },
  paths: { kind: 'list', example: '["src/**/*.ts"]' },
  excludes: { kind: 'list-or-empty', example: '["**/*.test.ts"]' },
} satisfies Record<string, FieldSpec>

function readFrontMatter(source: string, file: string, yaml: FrontMatterYaml): FrontMatter {
  const { isMap, isScalar } = yaml
  const out = emptyFrontMatter()
  // The front matter begins on the file's second line; columns are unchanged.
  const at = (offset: number) => {
    const p = positionOf(source, offset)
    return { line: p.line + 1, column: p.column }
  }
  const fail = (code: FragmentErrorCode, offset: number, message: string) =>
    out.errors.push({ file, ...at(offset), code, message })
  // Before the composer, which recurses once per level.
  const deep = yamlDepthExceeded(source, yaml)
  if (deep !== -1) {
    fail('too-deep', deep, `the front matter ${tooDeepText(MAX_NESTING_DEPTH)}: flatten it`)
    return out
  }
  const doc = yaml.parseDocument(source, { prettyErrors: false, uniqueKeys: true })
  if (doc.errors.length > 0) {
    // Tabs make the parser report confusing follow-on errors; the tab itself is the one to fix.
    const tabs = tabIndentedLines(source)
    for (const offset of tabs) {
      fail(
        'tab-indentation',
        offset,
        'the front matter is indented with a tab; YAML allows only spaces: indent with spaces',
      )
    }
    const first = doc.errors[0]!
    if (tabs.length === 0)
      fail(
        'yaml-syntax',
        first.pos[0],
        `the front matter is not valid YAML: ${first.message}${yamlHint(first.code)}`,
      )
    return out
  }
  const root = doc.contents
  if (root === null || (isScalar(root) && root.value === null)) return out
  if (!isMap(root)) {
    fail(
      'not-a-mapping',
      root.range?.[0] ?? 0,
      `the front matter must be \`field: value\` lines, not ${describe(root, yaml)}`,
    )
    return out
  }
  const fields: Record<string, unknown> = {}
  for (const pair of root.items) {
    const key = pair.key as Node | null
    const value = pair.value as Node | null
    const keyOffset = key?.range?.[0] ?? 0
    const valueOffset = value?.range?.[0] ?? keyOffset
    if (!isScalar(key) || (typeof key.value !== 'string' && typeof key.value !== 'number')) {
      fail('invalid-field', keyOffset, 'a field name must be a plain word, e.g. `order: 10`')
      continue
    }
    const name = String(key.value)
    setOwn(out.positions, name, at(keyOffset))
    if (Object.hasOwn(FIELD_SPECS, name)) {
      const result = checkField(FIELD_SPECS[name as keyof typeof FIELD_SPECS], value, doc, yaml)
      if (typeof result === 'string') fail('invalid-field', valueOffset, `\`${name}\` ${result}`)
      else fields[name] = result.value
      continue
    }
    const known = Object.keys(FIELD_SPECS).find((k) => stem(k) === stem(name))
    if (known !== undefined) {
      fail('unknown-field', keyOffset, `unknown field \`${name}\`: did you mean \`${known}\`?`)
      continue
    }
    try {
      // The root mapping is the first level.
      const problem = yamlValueProblem(value, yaml, MAX_NESTING_DEPTH - 1)
      if (problem !== undefined) {
        const what =
          problem.kind === 'too-deep'
            ? `${tooDeepText(MAX_NESTING_DEPTH)}: flatten it`
            : 'has a key that is a list, a mapping or an alias: write keys as plain text'
        fail(
          problem.kind === 'too-deep' ? 'too-deep' : 'invalid-field',
          problem.offset,
          `\`${name}\` ${what}`,
        )
        continue
      }
      setOwn(out.extra, name, value === null ? null : value.toJS(doc, { maxAliasCount: 100 }))
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause)
      fail(
        'invalid-field',
        valueOffset,
        `\`${name}\` cannot be read (${detail}): quote values that start with \`*\``,
      )
    }
  }
  const { dynamic, stability } = fields
  if (
    out.errors.length === 0 &&
    dynamic !== undefined &&
    stability !== undefined &&
    (dynamic === true) !== (stability === 'turn')
  ) {
    const message = `\`dynamic: ${dynamic}\` contradicts \`stability: ${stability}\`: keep only \`stability\``
    out.errors.push({ file, ...out.positions.dynamic!, code: 'invalid-field', message })
  }
  out.fields = fields as Fields
  return out
}

/** The checked value, or what is wrong with it (completing "`name` …"). */
function checkField(
  spec: FieldSpec,
  node: Node | null,
  doc: Document,
  yaml: FrontMatterYaml,
): { value: unknown } | string {
  const { isAlias, isScalar, isSeq } = yaml
  const resolved = node !== null && isAlias(node) ? node.resolve(doc) : node
  if (resolved === undefined) return ALIAS_HINT
  if (resolved === null || (isScalar(resolved) && resolved.value === null))
    return 'has no value: give one or remove the line'
  const value = isScalar(resolved) ? resolved.value : undefined
  const found = describe(resolved, yaml)
  if (Array.isArray(spec)) {
    if (typeof value === 'string' && spec.includes(value)) return { value }
    return `must be one of ${spec.map((a) => `\`${a}\``).join(', ')}, not ${found}`
  }
  const { kind, example } = spec
  if (kind === 'word' || kind === 'text') {
    if (typeof value !== 'string') return `must be text, not ${found}; quote it if needed, e.g. ${example}`
    if (kind === 'word' && !/^\S+$/.test(value)) return `must be one word without spaces, e.g. ${example}`
    return { value }
  }
  if (kind === 'number') {
    return typeof value === 'number' && Number.isFinite(value)
      ? { value }
      : `must be a number, not ${found}; e.g. ${example}`
  }
  if (kind === 'boolean')
    return typeof value === 'boolean' ? { value } : `must be \`true\` or \`false\`, not ${found}`
  // A single text is read as a list of one.
  if (typeof value === 'string')
    return value.length > 0 ? { value: [value] } : `must not be empty; e.g. ${example}`
  if (!isSeq(resolved)) return `must be a list of text, not ${found}; e.g. ${example}`
  const values: string[] = []
  for (const item of resolved.items as (Node | null)[]) {
    const entry = item !== null && isAlias(item) ? item.resolve(doc) : item
    if (entry === undefined) return ALIAS_HINT
    if (!isScalar(entry) || typeof entry.value !== 'string' || entry.value.length === 0) {
      return `must hold only non-empty text, not ${entry === null ? 'no value' : describe(entry, yaml)}; e.g. ${example}`
    }
    values.push(entry.value)
  }
  if (values.length === 0 && kind === 'list')
    return `is an empty list: give at least one entry, e.g. ${example}, or remove the line`
  return { value: values }
}

const ALIAS_HINT = 'starts with `*`, which YAML reads as an alias: quote it, e.g. `paths: ["**/*.ts"]`'

function yamlHint(code: string): string {
  if (code === 'DUPLICATE_KEY') return ': keep only one of them'
  if (code === 'MISSING_CHAR' || code === 'BAD_INDENT' || code === 'UNEXPECTED_TOKEN') {
    return ': check the quotes, brackets and indentation of this line'
  }
  return ''
}

/** Offsets of the first tab in each line whose indentation holds one (comments and blank lines aside). */
function tabIndentedLines(source: string): number[] {
  const offsets: number[] = []
  const re = /^([ \t]*)([^ \t\n])/gm
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    const indent = m[1]!
    if (m[2] !== '#' && indent.includes('\t')) offsets.push(m.index + indent.indexOf('\t'))
  }
  return offsets
}

/** Case and a plural `s` aside: `Path` and `path` are near-misses of `paths`. */
function stem(name: string): string {
  return name.toLowerCase().replace(/s$/, '')
}

/** Sets an own property even for a name like `__proto__`, which plain assignment would make a prototype. */
function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true })
}

function describe(node: Node, { isAlias, isMap, isScalar, isSeq }: FrontMatterYaml): string {
  if (isSeq(node)) return 'a list'
  if (isMap(node)) return 'a mapping'
  if (isAlias(node)) return 'an alias'
  const value = isScalar(node) ? node.value : undefined
  if (typeof value === 'string') return `the text "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`
  if (typeof value === 'number') return `the number ${value}`
  if (typeof value === 'boolean') return `\`${value}\``
  return 'no value'
}
