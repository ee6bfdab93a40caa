import { positionOf } from '../shared/line-counter.js'
import type { LockFile } from './lock-files.js'
import { type LockEntry, type LockSection, type PromptLock, SYSPROMPT_ENTRY } from './lock-types.js'

/** Stable codes of {@link LockError}. */
export type LockErrorCode = 'invalid-json' | 'invalid-shape' | 'unsupported-version' | 'duplicate-key'

/**
 * A lock file that cannot be read: not JSON (`invalid-json`), JSON of the
 * wrong shape (`invalid-shape`, `path` names the field), an entry key
 * given twice (`duplicate-key`) or written by a future version
 * (`unsupported-version`). `line` is the 1-based line of the file at fault
 * when known.
 */
export class LockError extends Error {
  override readonly name = 'LockError'
  readonly code: LockErrorCode
  readonly path: string | undefined
  readonly line: number | undefined

  constructor(
    code: LockErrorCode,
    message: string,
    options: { path?: string; line?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.path = options.path
    this.line = options.line
  }
}

// The line an error points at: set by `parseLock` while it reads one entry (the line of its key).
let errorLine: number | undefined

function where(): string {
  return errorLine === undefined ? '' : `:${errorLine}`
}

function shapeError(path: string, expected: string): LockError {
  return new LockError(
    'invalid-shape',
    `sysprompt.lock${where()}: ${path} must be ${expected}; fix it or regenerate the file with \`sysprompt check --update\``,
    { path, ...(errorLine === undefined ? {} : { line: errorLine }) },
  )
}

type Json = Record<string, unknown>

function object(value: unknown, path: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw shapeError(path, 'an object')
  return value as Json
}

const at = (path: string, key: string) => (path === '' ? key : `${path}.${key}`)

function string(o: Json, key: string, path: string): string {
  const v = o[key]
  if (typeof v !== 'string') throw shapeError(at(path, key), 'a string')
  return v
}

function count(o: Json, key: string, path: string): number {
  const v = o[key]
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw shapeError(at(path, key), 'a whole number ≥ 0')
  return v
}

function array(o: Json, key: string, path: string): unknown[] {
  const v = o[key]
  if (!Array.isArray(v)) throw shapeError(at(path, key), 'an array')
  return v
}

function lockFile(value: unknown, path: string): LockFile {
  const o = object(value, path)
  const lines = o.lines
  if (
    !Array.isArray(lines) ||
    lines.length !== 2 ||
    !lines.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 1) ||
    lines[0] > lines[1]
  ) {
    throw shapeError(`${path}.lines`, 'two line numbers [first, last], first ≤ last')
  }
  return { path: string(o, 'path', path), hash: string(o, 'hash', path), lines: [lines[0], lines[1]] }
}

/** A lock's `cwd`: relative, `/` separated, never leaving the root (a lock is untrusted input). */
function relativeCwd(cwd: string, path: string): string {
  const parts = cwd.split('/')
  if (
    cwd === '' ||
    cwd.startsWith('/') ||
    /^[A-Za-z]:/.test(cwd) ||
    cwd.includes('\\') ||
    parts.includes('..') ||
    cwd.includes('\u0000')
  ) {
    throw shapeError(
      path === '' ? 'cwd' : `${path}.cwd`,
      'a directory relative to the project root, like "." or "packages/api"',
    )
  }
  return cwd
}

/** An entry key: `sysprompt`, a mode, or a mode and the version of its profile (`claude@2.1.332`). */
const ENTRY_KEY = /^[a-z][a-z0-9-]{0,39}(@(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5}))?$/

/** Offsets in `text` where `key` is written as an object key (`"key":`). */
function keyOffsets(text: string, key: string): number[] {
  const quoted = JSON.stringify(key)
  const out: number[] = []
  for (let i = text.indexOf(quoted); i !== -1; i = text.indexOf(quoted, i + 1)) {
    let j = i + quoted.length
    while (text[j] === ' ' || text[j] === '\t' || text[j] === '\n' || text[j] === '\r') j++
    if (text[j] === ':') out.push(i)
  }
  return out
}

function entry(root: Json, path: string): LockEntry {
  const hash = string(root, 'hash', path)
  const tokens = count(root, 'tokens', path)
  const tokenizer = string(root, 'tokenizer', path)
  const toolsHash = string(root, 'toolsHash', path)
  const tools = array(root, 'tools', path).map((item, i) => {
    const at = `${path === '' ? '' : `${path}.`}tools[${i}]`
    const o = object(item, at)
    return { name: string(o, 'name', at), hash: string(o, 'hash', at) }
  })
  const seen = new Set<string>()
  const sections = array(root, 'sections', path).map((item, i): LockSection => {
    const at = `${path === '' ? '' : `${path}.`}sections[${i}]`
    const o = object(item, at)
    const name = string(o, 'name', at)
    if (seen.has(name)) throw shapeError(`${at}.name`, `unique, but "${name}" appears twice`)
    seen.add(name)
    if (typeof o.order !== 'number' || !Number.isFinite(o.order)) throw shapeError(`${at}.order`, 'a number')
    const section: LockSection = {
      name,
      order: o.order,
      hash: string(o, 'hash', at),
      tokens: count(o, 'tokens', at),
    }
    if (o.source !== undefined) section.source = string(o, 'source', at)
    if (o.files !== undefined) {
      section.textHash = string(o, 'textHash', at)
      section.files = array(o, 'files', at).map((f, k) => lockFile(f, `${at}.files[${k}]`))
    }
    return section
  })
  const lock: LockEntry = { hash, tokens, tokenizer, toolsHash, tools, sections }
  if (root.cwd !== undefined) lock.cwd = relativeCwd(string(root, 'cwd', path), path)
  if (root.pinned !== undefined) {
    lock.pinned = array(root, 'pinned', path).map((k, i) => {
      if (typeof k !== 'string') throw shapeError(`${path === '' ? '' : `${path}.`}pinned[${i}]`, 'a string')
      return k
    })
  }
  if (root.view !== undefined) {
    const at = `${path === '' ? '' : `${path}.`}view`
    const o = object(root.view, at)
    lock.view = {
      hash: string(o, 'hash', at),
      tokens: count(o, 'tokens', at),
      files: array(o, 'files', at).map((f, i) => {
        if (typeof f !== 'string') throw shapeError(`${at}.files[${i}]`, 'a string')
        return f
      }),
    }
  }
  return lock
}

/**
 * Reads `sysprompt.lock` text (`docs/lock-format.md`) and says which format
 * version it was in: version 2 as it is, version 1 as the one entry
 * `sysprompt`. Unknown keys are ignored. Throws a {@link LockError} that
 * names the line and the field at fault and what to do.
 */
export function parseLockFile(text: string): { lock: PromptLock; version: 1 | 2 } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new LockError(
      'invalid-json',
      `sysprompt.lock is not valid JSON (${(cause as Error).message}); fix it or regenerate it with \`sysprompt check --update\``,
      { cause },
    )
  }
  errorLine = undefined
  try {
    const root = object(value, 'the top level')
    if (root.version === 1)
      return { lock: { version: 2, entries: { [SYSPROMPT_ENTRY]: entry(root, '') } }, version: 1 }
    if (root.version !== 2) {
      const line = keyOffsets(text, 'version')[0]
      throw new LockError(
        'unsupported-version',
        `sysprompt.lock${line === undefined ? '' : `:${positionOf(text, line).line}`} has version ${JSON.stringify(root.version)}; this sysprompt reads versions 1 and 2. ` +
          'Upgrade sysprompt, or regenerate the file with `sysprompt check --update`',
        { path: 'version', ...(line === undefined ? {} : { line: positionOf(text, line).line }) },
      )
    }
    const entries = object(root.entries, 'entries')
    const out: Record<string, LockEntry> = {}
    for (const key of Object.keys(entries)) {
      const offsets = keyOffsets(text, key)
      errorLine = offsets[0] === undefined ? undefined : positionOf(text, offsets[0]).line
      if (!ENTRY_KEY.test(key))
        throw shapeError(
          `entries[${JSON.stringify(key)}]`,
          'keyed `sysprompt`, a mode, or mode@MAJOR.MINOR.PATCH',
        )
      if (offsets.length > 1) {
        const line = positionOf(text, offsets[1]!).line
        throw new LockError(
          'duplicate-key',
          `sysprompt.lock:${line}: the entry "${key}" is given twice (first at line ${errorLine}); remove one, or regenerate it with \`sysprompt check --update --mode ${key}\``,
          { path: `entries[${JSON.stringify(key)}]`, line },
        )
      }
      out[key] = entry(
        object(entries[key], `entries[${JSON.stringify(key)}]`),
        `entries[${JSON.stringify(key)}]`,
      )
    }
    return { lock: { version: 2, entries: out }, version: 2 }
  } finally {
    errorLine = undefined
  }
}

/** Reads `sysprompt.lock` text into a lock (see {@link parseLockFile}). */
export function parseLock(text: string): PromptLock {
  return parseLockFile(text).lock
}
