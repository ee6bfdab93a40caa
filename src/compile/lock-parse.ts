import type { LockFile } from './lock-files.js'
import type { LockSection, PromptLock } from './lock-types.js'

/** Stable codes of {@link LockError}. */
export type LockErrorCode = 'invalid-json' | 'invalid-shape' | 'unsupported-version'

/**
 * A lock file that cannot be read: not JSON (`invalid-json`), JSON of the
 * wrong shape (`invalid-shape`, `path` names the field) or written by a
 * future version (`unsupported-version`).
 */
export class LockError extends Error {
  override readonly name = 'LockError'
  readonly code: LockErrorCode
  readonly path: string | undefined

  constructor(code: LockErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.path = options.path
  }
}

function shapeError(path: string, expected: string): LockError {
  return new LockError(
    'invalid-shape',
    `sysprompt.lock: ${path} must be ${expected}; fix it or regenerate the file with \`sysprompt check --update\``,
    { path },
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

function array(o: Json, key: string, path = ''): unknown[] {
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
function relativeCwd(cwd: string): string {
  const parts = cwd.split('/')
  if (
    cwd === '' ||
    cwd.startsWith('/') ||
    /^[A-Za-z]:/.test(cwd) ||
    cwd.includes('\\') ||
    parts.includes('..') ||
    cwd.includes('\u0000')
  ) {
    throw shapeError('cwd', 'a directory relative to the project root, like "." or "packages/api"')
  }
  return cwd
}

/**
 * Reads `sysprompt.lock` text into a lock, checking its shape; unknown keys
 * are ignored. Throws a {@link LockError} that names the field at fault.
 */
export function parseLock(text: string): PromptLock {
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
  const root = object(value, 'the top level')
  if (root.version !== 1) {
    throw new LockError(
      'unsupported-version',
      `sysprompt.lock has version ${JSON.stringify(root.version)}; this sysprompt reads version 1. ` +
        'Upgrade sysprompt, or regenerate the file with `sysprompt check --update`',
      { path: 'version' },
    )
  }
  const hash = string(root, 'hash', '')
  const tokens = count(root, 'tokens', '')
  const tokenizer = string(root, 'tokenizer', '')
  const toolsHash = string(root, 'toolsHash', '')
  const tools = array(root, 'tools').map((item, i) => {
    const o = object(item, `tools[${i}]`)
    return { name: string(o, 'name', `tools[${i}]`), hash: string(o, 'hash', `tools[${i}]`) }
  })
  const seen = new Set<string>()
  const sections = array(root, 'sections').map((item, i): LockSection => {
    const path = `sections[${i}]`
    const o = object(item, path)
    const name = string(o, 'name', path)
    if (seen.has(name)) throw shapeError(`${path}.name`, `unique, but "${name}" appears twice`)
    seen.add(name)
    if (typeof o.order !== 'number' || !Number.isFinite(o.order))
      throw shapeError(`${path}.order`, 'a number')
    const entry: LockSection = {
      name,
      order: o.order,
      hash: string(o, 'hash', path),
      tokens: count(o, 'tokens', path),
    }
    if (o.source !== undefined) entry.source = string(o, 'source', path)
    if (o.files !== undefined) {
      entry.textHash = string(o, 'textHash', path)
      entry.files = array(o, 'files', path).map((f, k) => lockFile(f, `${path}.files[${k}]`))
    }
    return entry
  })
  const lock: PromptLock = { version: 1, hash, tokens, tokenizer, toolsHash, tools, sections }
  if (root.cwd !== undefined) lock.cwd = relativeCwd(string(root, 'cwd', ''))
  if (root.pinned !== undefined) {
    lock.pinned = array(root, 'pinned').map((k, i) => {
      if (typeof k !== 'string') throw shapeError(`pinned[${i}]`, 'a string')
      return k
    })
  }
  return lock
}
