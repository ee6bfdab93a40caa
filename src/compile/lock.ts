import type { CompiledPrompt } from './types.js'

/** One section as recorded in `sysprompt.lock`. */
export interface LockSection {
  name: string
  order: number
  hash: string
  tokens: number
  /** Fragment path or registering module, when known. */
  source?: string
}

/**
 * The golden record of a compiled prompt (`sysprompt.lock`, SPEC §5): the
 * whole hash and token count, the tokenizer the counts are in, the tools and
 * every section by name, in prompt order.
 */
export interface PromptLock {
  version: 1
  hash: string
  tokens: number
  tokenizer: string
  toolsHash: string
  tools: { name: string; hash: string }[]
  sections: LockSection[]
}

/** One way a compiled prompt differs from its lock. */
export interface LockDifference {
  section?: string
  kind: 'added' | 'removed' | 'changed' | 'moved' | 'tools'
  message: string
}

/** What `checkLock` found: `ok` when the compiled prompt matches the lock in every recorded respect. */
export interface LockCheck {
  ok: boolean
  differences: LockDifference[]
}

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

/**
 * The lock of a compiled prompt. `sources` maps section names to where they
 * come from (fragment path or registering module); a section without an
 * entry takes the source of the manifest entry whose id is its name, if any.
 */
export function createLock(compiled: CompiledPrompt, sources: Record<string, string> = {}): PromptLock {
  const fromManifest = new Map(compiled.manifest.map((entry) => [entry.id, entry.source]))
  return {
    version: 1,
    hash: compiled.hash,
    tokens: compiled.tokens,
    tokenizer: compiled.tokenizer,
    toolsHash: compiled.toolsHash,
    tools: compiled.tools.map((t) => ({ name: t.name, hash: t.hash })),
    sections: compiled.sections.map((s) => {
      const source = Object.hasOwn(sources, s.name) ? sources[s.name] : fromManifest.get(s.name)
      const entry: LockSection = { name: s.name, order: s.order, hash: s.hash, tokens: s.tokens }
      if (source !== undefined) entry.source = source
      return entry
    }),
  }
}

function line(fields: [string, unknown][]): string {
  return `{ ${fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')} }`
}

function list(name: string, items: string[]): string {
  if (items.length === 0) return `  ${JSON.stringify(name)}: []`
  return `  ${JSON.stringify(name)}: [\n${items.map((item) => `    ${item}`).join(',\n')}\n  ]`
}

/**
 * The lock as file text: JSON with a fixed key order, one tool and one
 * section per line (so a review diff shows exactly the sections that
 * changed), LF line ends and a trailing newline. Same lock, same bytes.
 */
export function formatLock(lock: PromptLock): string {
  const head = (['version', 'hash', 'tokens', 'tokenizer', 'toolsHash'] as const).map(
    (key) => `  ${JSON.stringify(key)}: ${JSON.stringify(lock[key])}`,
  )
  const tools = lock.tools.map((t) =>
    line([
      ['name', t.name],
      ['hash', t.hash],
    ]),
  )
  const sections = lock.sections.map((s) =>
    line([
      ['name', s.name],
      ['order', s.order],
      ['hash', s.hash],
      ['tokens', s.tokens],
      ['source', s.source],
    ]),
  )
  return `{\n${[...head, list('tools', tools), list('sections', sections)].join(',\n')}\n}\n`
}

const UPDATE = 'If the change is intended, run `sysprompt check --update`.'

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

function array(o: Json, key: string): unknown[] {
  const v = o[key]
  if (!Array.isArray(v)) throw shapeError(key, 'an array')
  return v
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
    return entry
  })
  return { version: 1, hash, tokens, tokenizer, toolsHash, tools, sections }
}

const short = (hash: string) => (hash.length > 19 ? `${hash.slice(0, 19)}…` : hash)

/** Names of `a` that keep their relative order in `b` (a longest common subsequence). */
function keptInOrder(a: string[], b: string[]): Set<string> {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i]![j] =
        a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!)
    }
  }
  const kept = new Set<string>()
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      kept.add(a[i]!)
      i++
      j++
    } else if (lengths[i + 1]![j]! > lengths[i]![j + 1]!) i++
    else j++
  }
  return kept
}

function sectionDifferences(compiled: CompiledPrompt, lock: PromptLock): LockDifference[] {
  const out: LockDifference[] = []
  const locked = new Map(lock.sections.map((s, i) => [s.name, { s, position: i + 1 }]))
  const current = new Set(compiled.sections.map((s) => s.name))
  // A section whose `order` changed is what the user moved; among the rest,
  // those out of their relative order (equal orders swapped) moved as well.
  const reordered = new Set(
    compiled.sections
      .filter((s) => locked.has(s.name) && locked.get(s.name)!.s.order !== s.order)
      .map((s) => s.name),
  )
  const steady = (name: string) => !reordered.has(name)
  const kept = keptInOrder(
    lock.sections.map((s) => s.name).filter((name) => current.has(name) && steady(name)),
    compiled.sections.map((s) => s.name).filter((name) => locked.has(name) && steady(name)),
  )
  for (const [i, s] of compiled.sections.entries()) {
    const was = locked.get(s.name)
    if (was === undefined) {
      out.push({
        section: s.name,
        kind: 'added',
        message: `section "${s.name}" (${s.tokens} tokens) is new at position ${i + 1}. ${UPDATE}`,
      })
      continue
    }
    const from = was.s.source === undefined ? '' : ` (from ${was.s.source})`
    if (was.s.hash !== s.hash) {
      const delta = s.tokens - was.s.tokens
      out.push({
        section: s.name,
        kind: 'changed',
        message:
          `section "${s.name}"${from} changed: ${short(was.s.hash)} → ${short(s.hash)}, ` +
          `${was.s.tokens} → ${s.tokens} tokens (${delta >= 0 ? '+' : ''}${delta}). ${UPDATE}`,
      })
    }
    if (reordered.has(s.name) || !kept.has(s.name)) {
      const position =
        was.position === i + 1 ? `position ${i + 1} (unchanged)` : `position ${was.position} → ${i + 1}`
      const order =
        was.s.order === s.order ? `order ${s.order} (unchanged)` : `order ${was.s.order} → ${s.order}`
      out.push({
        section: s.name,
        kind: 'moved',
        message: `section "${s.name}" moved: ${position}, ${order}. ${UPDATE}`,
      })
    }
  }
  for (const s of lock.sections) {
    if (current.has(s.name)) continue
    const from = s.source === undefined ? '' : ` (from ${s.source})`
    out.push({
      section: s.name,
      kind: 'removed',
      message: `section "${s.name}"${from}, ${s.tokens} tokens in the lock, is gone. ${UPDATE}`,
    })
  }
  return out
}

function toolDifferences(compiled: CompiledPrompt, lock: PromptLock): LockDifference[] {
  if (compiled.toolsHash === lock.toolsHash) return []
  const out: LockDifference[] = []
  const locked = new Map(lock.tools.map((t) => [t.name, t.hash]))
  const current = new Map(compiled.tools.map((t) => [t.name, t.hash]))
  for (const t of compiled.tools) {
    const was = locked.get(t.name)
    if (was === undefined) out.push({ kind: 'tools', message: `tool "${t.name}" is new. ${UPDATE}` })
    else if (was !== t.hash) {
      out.push({
        kind: 'tools',
        message: `tool "${t.name}" changed its description or parameters. ${UPDATE}`,
      })
    }
  }
  for (const t of lock.tools) {
    if (!current.has(t.name)) out.push({ kind: 'tools', message: `tool "${t.name}" is gone. ${UPDATE}` })
  }
  const before = lock.tools.map((t) => t.name).filter((name) => current.has(name))
  const after = compiled.tools.map((t) => t.name).filter((name) => locked.has(name))
  if (before.join('\0') !== after.join('\0')) {
    out.push({
      kind: 'tools',
      message: `tool order changed: ${before.join(', ')} → ${after.join(', ')}; the cached prefix starts with the tools. ${UPDATE}`,
    })
  }
  if (out.length === 0) {
    out.push({
      kind: 'tools',
      message: `the tools hash changed (${short(lock.toolsHash)} → ${short(compiled.toolsHash)}) though every tool matches the lock. ${UPDATE}`,
    })
  }
  return out
}

/**
 * Compares a compiled prompt with its lock and explains every difference
 * (SPEC §5): sections added, removed, changed (another hash) or moved (given
 * another `order`, or out of their relative order), tool changes, a different
 * tokenizer, and a changed whole hash that no section explains. Each message
 * says what changed and how to accept it. Sources are informational and not
 * compared. `ok` when there is no difference.
 */
export function checkLock(compiled: CompiledPrompt, lock: PromptLock): LockCheck {
  const differences = [...sectionDifferences(compiled, lock), ...toolDifferences(compiled, lock)]
  if (compiled.tokenizer !== lock.tokenizer) {
    differences.push({
      kind: 'changed',
      message:
        `the lock counts tokens with ${lock.tokenizer}, this prompt was counted with ${compiled.tokenizer}: ` +
        `check with --tokenizer ${lock.tokenizer}. ${UPDATE}`,
    })
  }
  if (compiled.hash !== lock.hash && !differences.some((d) => d.section !== undefined)) {
    differences.push({
      kind: 'changed',
      message: `the prompt text changed (${short(lock.hash)} → ${short(compiled.hash)}) though every section matches the lock. ${UPDATE}`,
    })
  }
  return { ok: differences.length === 0, differences }
}
