import { fileChanges, sectionFiles } from './lock-files.js'
import {
  type LockCheck,
  type LockDifference,
  type LockEntry,
  type LockMachine,
  type LockSection,
  type LockView,
  lockUpdate,
  type PromptLock,
  SYSPROMPT_ENTRY,
} from './lock-types.js'
import { groupDigits } from './numbers.js'
import type { CompiledPrompt } from './types.js'

/**
 * The lock entry of a compiled prompt. `sources` maps section names to where they
 * come from (fragment path or registering module); a section without an
 * entry takes the source of the manifest entry whose id is its name, if any.
 * `view` is what the mode's harness sends, when the caller knows it.
 */
export function createLock(
  compiled: CompiledPrompt,
  sources: Record<string, string> = {},
  machine?: LockMachine,
  view?: LockView,
): LockEntry {
  const fromManifest = new Map(compiled.manifest.map((entry) => [entry.id, entry.source]))
  const lock: LockEntry = {
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
  if (view !== undefined) lock.view = { hash: view.hash, tokens: view.tokens, files: [...view.files] }
  return lock
}

/** The entries in file order: sysprompt's own first, then by key. */
export function lockKeys(lock: PromptLock): string[] {
  return Object.keys(lock.entries).sort((a, b) =>
    a === SYSPROMPT_ENTRY ? -1 : b === SYSPROMPT_ENTRY ? 1 : a < b ? -1 : a > b ? 1 : 0,
  )
}

/** `lock` with the entry `key` written or replaced, the others kept. */
export function withLockEntry(lock: PromptLock | undefined, key: string, entry: LockEntry): PromptLock {
  return { version: 2, entries: { ...(lock?.entries ?? {}), [key]: entry } }
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

// Only at `\n`: a JSON string may hold U+2028 or a CR, which `^` in a multiline pattern would match after.
const indent = (text: string, by: string) => by + text.split('\n').join(`\n${by}`)

function formatEntry(entry: LockEntry): string {
  const head = (['hash', 'tokens', 'tokenizer', 'toolsHash', 'cwd', 'pinned'] as const)
    .filter((key) => entry[key] !== undefined)
    .map((key) => `  ${JSON.stringify(key)}: ${JSON.stringify(entry[key])}`)
  if (entry.view !== undefined) {
    const { hash, tokens, files } = entry.view
    head.push(
      `  "view": ${line([
        ['hash', hash],
        ['tokens', tokens],
        ['files', files],
      ])}`,
    )
  }
  const tools = entry.tools.map((t) =>
    line([
      ['name', t.name],
      ['hash', t.hash],
    ]),
  )
  const sections = entry.sections.map((s) =>
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
  return `{\n${[...head, list('tools', tools), list('sections', sections)].join(',\n')}\n}`
}

/**
 * The lock as file text (format version 2, `docs/lock-format.md`): JSON
 * with a fixed key order, sysprompt's own entry first and the others by
 * key, one tool and one section per line (so a review diff shows exactly
 * the sections that changed), LF line ends and a trailing newline. Same
 * lock, same bytes.
 */
export function formatLock(lock: PromptLock): string {
  const entries = lockKeys(lock).map((key) => `${JSON.stringify(key)}: ${formatEntry(lock.entries[key]!)}`)
  const body = entries.length === 0 ? '{}' : `{\n${indent(entries.join(',\n'), '    ')}\n  }`
  return `{\n  "version": 2,\n  "entries": ${body}\n}\n`
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

function sectionDifferences(compiled: CompiledPrompt, lock: LockEntry, UPDATE: string): LockDifference[] {
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

function toolDifferences(compiled: CompiledPrompt, lock: LockEntry, UPDATE: string): LockDifference[] {
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

/** What `checkLock` needs beyond the prompt: the entry's key (for the advice) and the current harness view. */
export interface CheckLockOptions {
  /** The entry's key: the advice names `--mode KEY` for any entry but `sysprompt`. */
  key?: string
  /** What the harness sends now; compared with the entry's `view` when both exist. */
  view?: LockView
}

function viewDifferences(
  lock: LockEntry,
  view: LockView | undefined,
  key: string,
  UPDATE: string,
  explained: boolean,
): LockDifference[] {
  const was = lock.view
  if (was === undefined || view === undefined || was.hash === view.hash) return []
  const gone = was.files.filter((f) => !view.files.includes(f))
  const added = view.files.filter((f) => !was.files.includes(f))
  // A file's text is in the view too: a change the prompt's differences explain is not told twice.
  if (explained && gone.length === 0 && added.length === 0) return []
  const which = [
    ...(added.length > 0 ? [`now sends ${added.join(', ')}`] : []),
    ...(gone.length > 0 ? [`no longer sends ${gone.join(', ')}`] : []),
  ]
  const delta = view.tokens - was.tokens
  return [
    {
      kind: 'view',
      message:
        `what the ${key} harness sends changed${which.length > 0 ? ` (${which.join('; ')})` : ''}: ` +
        `${short(was.hash)} → ${short(view.hash)}, ${groupDigits(was.tokens)} → ${groupDigits(view.tokens)} tokens ` +
        `(${delta >= 0 ? '+' : '−'}${groupDigits(Math.abs(delta))}). ${UPDATE}`,
    },
  ]
}

/**
 * Compares a compiled prompt with its lock entry and explains every difference
 * (SPEC §5): sections added, removed, changed (another hash) or moved (given
 * another `order`, or out of their relative order), tool changes, a different
 * tokenizer, a changed whole hash that no section explains, and what the
 * harness sends (`options.view` against the entry's). Each message says what
 * changed and how to accept it. Sources are informational and not compared.
 * `ok` when there is no difference.
 */
export function checkLock(
  compiled: CompiledPrompt,
  lock: LockEntry,
  options: CheckLockOptions = {},
): LockCheck {
  const key = options.key ?? SYSPROMPT_ENTRY
  const UPDATE = lockUpdate(key)
  const differences = [
    ...sectionDifferences(compiled, lock, UPDATE),
    ...toolDifferences(compiled, lock, UPDATE),
  ]
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
  differences.push(...viewDifferences(lock, options.view, key, UPDATE, differences.length > 0))
  return { ok: differences.length === 0, differences }
}
