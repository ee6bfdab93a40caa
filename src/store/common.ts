import type { ClosablePromptStore } from '../compile/memory-store.js'
import { StoreConflictError, StoreError, type StoreSubject } from '../compile/store-errors.js'
import type { PromptStore, SessionKind } from '../compile/types.js'

/** One line of `listSessions`: a session's current version without its prompt. */
export interface SessionSummary {
  id: string
  versions: number
  hash: string
  tokens: number
  reason: string
  /** ISO 8601 of version 1 and of the current version. */
  createdAt: string
  updatedAt: string
  /** A recording (absent for a prompt session), with the number its last call took. */
  kind?: SessionKind
  calls?: number
}

/** The recording methods of `PromptStore` (SPEC §11), which each SQL driver keeps in a file of its own. */
export type RecordingMethods = Pick<
  PromptStore,
  'recordCall' | 'calls' | 'findVersionByPrefix' | 'deleteSession' | 'pruneCalls'
>

/** A persistent `PromptStore` (SQLite or PostgreSQL): also lists its sessions, newest first. */
export interface PersistentPromptStore extends ClosablePromptStore {
  /** Where the data lives, for messages: a file path or a server without its password. */
  readonly location: string
  listSessions(options?: { limit?: number }): Promise<SessionSummary[]>
}

/** Options every driver takes. */
export interface StoreClockOption {
  /** Stamps `updatedAt` of templates; defaults to the system clock. */
  clock?: () => Date
}

export const notFound = (operation: string, id: string, what = 'create it with createSession first') =>
  new StoreError({
    code: 'not-found',
    operation,
    subject: { kind: 'session', id },
    detail: `no such session; ${what}`,
  })

export const invalidFirst = (id: string, version: number) =>
  new StoreError({
    code: 'invalid',
    operation: 'createSession',
    subject: { kind: 'session', id },
    detail: `the first version must be numbered 1, got ${version}`,
  })

export const closedError = (operation: string) =>
  new StoreError({ code: 'closed', operation, detail: 'the store was closed; open a new one' })

/** The conflict of an append that lost, from the version it found stored. */
export function appendConflict(
  id: string,
  expectedHash: string,
  next: number,
  stored: { hash: string; version: number },
): StoreConflictError {
  const subject = { kind: 'session', id } as const
  return new StoreConflictError({
    operation: 'appendVersion',
    subject,
    expectedHash,
    actualHash: stored.hash,
    ...(stored.hash === expectedHash
      ? { reason: `version ${next} is not the next one (the latest is ${stored.version})` }
      : {}),
  })
}

/** Turns a driver's own error into a `StoreError` coded `failed` that names the operation. */
export function driverFailure(
  operation: string,
  subject: StoreSubject | undefined,
  error: unknown,
): StoreError {
  if (error instanceof StoreError) return error
  const message = error instanceof Error ? error.message : String(error)
  return new StoreError({
    code: 'failed',
    operation,
    ...(subject === undefined ? {} : { subject }),
    detail: `the database failed (${message}); check that it is reachable and writable, then retry`,
    cause: error,
  })
}

/**
 * Blob bodies by hash, bounded by total characters. Blobs are content
 * addressed and never change, so a cached body is as good as a read; the
 * hash checks of `decodeVersion` still run on every read.
 */
export class BlobCache {
  private readonly map = new Map<string, string>()
  private chars = 0
  constructor(private readonly maxChars = 32 * 1024 * 1024) {}

  get(hash: string): string | undefined {
    return this.map.get(hash)
  }

  set(hash: string, body: string): void {
    if (this.map.has(hash) || body.length > this.maxChars) return
    this.map.set(hash, body)
    this.chars += body.length
    for (const [key, value] of this.map) {
      if (this.chars <= this.maxChars) break
      this.map.delete(key)
      this.chars -= value.length
    }
  }
}
