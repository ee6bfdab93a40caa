import { fileChanges, sectionFiles } from './lock-files.js'
import {
  type LockCheck,
  type LockDifference,
  type LockMachine,
  type LockSection,
  type PromptLock,
  LOCK_UPDATE as UPDATE,
} from './lock-types.js'
import { groupDigits } from './numbers.js'
import type { CompiledPrompt } from './types.js'

/**
 * The lock of a compiled prompt. `sources` maps section names to where they
 * come from (fragment path or registering module); a section without an
 * entry takes the source of the manifest entry whose id is its name, if any.
 */
export function createLock(
  compiled: CompiledPrompt,
  sources: Record<string, string> = {},
  machine?: LockMachine,
): PromptLock {
  const fromManifest = new Map(compiled.manifest.map((entry) => [entry.id, entry.source]))
  const lock: PromptLock = {
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
      const included = sectionFiles(compiled, s)
      if (included !== undefined) {
        entry.textHash = included.textHash
        entry.files = included.files
      }
      return entry
    }),
  }
  if (machine !== undefined) {
    lock.cwd = machine.cwd
    lock.pinned = [...machine.pinned].sort()
  }
  return lock
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
  const head = (['version', 'hash', 'tokens', 'tokenizer', 'toolsHash', 'cwd', 'pinned'] as const)
    .filter((key) => lock[key] !== undefined)
    .map((key) => `  ${JSON.stringify(key)}: ${JSON.stringify(lock[key])}`)
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
      ['textHash', s.textHash],
      ['files', s.files?.map((f) => ({ path: f.path, hash: f.hash, lines: f.lines }))],
    ]),
  )
  return `{\n${[...head, list('tools', tools), list('sections', sections)].join(',\n')}\n}\n`
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
        message: `section "${s.name}" (${groupDigits(s.tokens)} tokens) is new at position ${i + 1}. ${UPDATE}`,
      })
      continue
    }
    const from = was.s.source === undefined ? '' : ` (from ${was.s.source})`
    if (was.s.hash !== s.hash) {
      const delta = s.tokens - was.s.tokens
      const tokens = `${groupDigits(was.s.tokens)} → ${groupDigits(s.tokens)} tokens (${delta >= 0 ? '+' : '−'}${groupDigits(Math.abs(delta))})`
      const included = sectionFiles(compiled, s)
      const files = fileChanges(s.name, was.s.files ?? [], included?.files ?? [])
      // The section itself is blamed only when its own text changed, not when only what it includes did.
      const ownText =
        was.s.textHash === undefined || included === undefined || was.s.textHash !== included.textHash
      if (ownText || files.length === 0) {
        out.push({
          section: s.name,
          kind: 'changed',
          message: `section "${s.name}"${from} changed: ${short(was.s.hash)} → ${short(s.hash)}, ${tokens}. ${UPDATE}`,
        })
      }
      for (const f of files) {
        out.push({
          section: s.name,
          file: f.path,
          lines: f.lines,
          kind: f.kind,
          message: `${f.message}: ${tokens} for the section. ${UPDATE}`,
        })
      }
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
      message: `section "${s.name}"${from}, ${groupDigits(s.tokens)} tokens in the lock, is gone. ${UPDATE}`,
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
