import type { LockFile } from './lock-files.js'

// The lock's data types and the advice its messages end with, shared by the
// lock's writer and checker (`lock.ts`) and its reader (`lock-parse.ts`).

/** The advice every lock difference ends with. */
export const LOCK_UPDATE = 'If the change is intended, run `sysprompt check --update`.'

/** The key of the entry for sysprompt's own prompt. */
export const SYSPROMPT_ENTRY = 'sysprompt'

/** The advice for the entry `key`: `--update` with `--mode` for every entry but sysprompt's own. */
export function lockUpdate(key: string = SYSPROMPT_ENTRY): string {
  return key === SYSPROMPT_ENTRY
    ? LOCK_UPDATE
    : `If the change is intended, run \`sysprompt check --update --mode ${key}\`.`
}

/** One section as recorded in `sysprompt.lock`. */
export interface LockSection {
  name: string
  order: number
  hash: string
  tokens: number
  /** Fragment path or registering module, when known. */
  source?: string
  /** Hash of the section's own text (its included files taken out); present with `files`. */
  textHash?: string
  /** The files the section includes, with the hash of their text and their lines in the prompt. */
  files?: LockFile[]
}

/** Where and how a lock was computed, so that it holds on any checkout. */
export interface LockMachine {
  /** The working directory the prompt was built for: its real directory (links resolved), relative to the project root (`.`, `packages/api`). */
  cwd: string
  /** The machine-specific keys whose values were pinned to placeholders (`prompt:cwd`, `system:hostname`, …). */
  pinned: string[]
}

/** What a harness sends for its instruction files, as an entry records it (lock format version 2). */
export interface LockView {
  /** `sha256:` of the view's parts (placement, role, text), the project root and home directory written as `<root>` and `<home>`. */
  hash: string
  tokens: number
  /** The files the harness sends, as the prompt names them, in order. */
  files: string[]
}

/**
 * One entry of `sysprompt.lock` (SPEC §5, `docs/lock-format.md`): the
 * golden record of the prompt built in one mode: the whole hash and token
 * count, the tokenizer the counts are in, the tools, every section by name
 * in prompt order, and what that mode's harness sends.
 */
export interface LockEntry {
  hash: string
  tokens: number
  tokenizer: string
  toolsHash: string
  /** The real working directory relative to the root (never through a link, never outside); absent in locks written before it was recorded. */
  cwd?: string
  /** The keys pinned to placeholders when the entry was computed. */
  pinned?: string[]
  /** The harness view; absent when the caller recorded none. */
  view?: LockView
  tools: { name: string; hash: string }[]
  sections: LockSection[]
}

/** `sysprompt.lock`, format version 2: one entry per mode, keyed `sysprompt`, `<mode>` or `<mode>@<version>`. */
export interface PromptLock {
  version: 2
  entries: Record<string, LockEntry>
}

/** One way a compiled prompt differs from its lock. */
export interface LockDifference {
  section?: string
  /** The included file that changed, as the prompt names it, when the change lies in one. */
  file?: string
  /** That file's lines in the current prompt (in the locked one when it was removed). */
  lines?: [number, number]
  kind: 'added' | 'removed' | 'changed' | 'moved' | 'tools' | 'view'
  message: string
}

/** What `checkLock` found: `ok` when the compiled prompt matches the lock in every recorded respect. */
export interface LockCheck {
  ok: boolean
  differences: LockDifference[]
}
