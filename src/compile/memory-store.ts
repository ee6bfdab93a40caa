import { hashText } from '../shared/hash.js'
import type { CallRecord } from './call-record.js'
import { checkCall, inRange } from './recordings.js'
import { StoreConflictError, StoreError } from './store-errors.js'
import type {
  PromptStore,
  SessionKind,
  SessionRecord,
  SessionVersion,
  StoredTemplate,
  UsageOutcome,
} from './types.js'

export interface MemoryStoreOptions {
  /** Stamps `updatedAt` of templates; defaults to the system clock. */
  clock?: () => Date
}

/** A `PromptStore` that can be closed; every driver has this shape (SPEC §8). */
export type ClosablePromptStore = PromptStore & { close(): Promise<void> }

/**
 * The in-memory `PromptStore` (SPEC §8), the default of
 * `createSessionPrompts`: for tests, one-shot tools and browsers. Values are
 * copied in and out with `structuredClone`, so a caller that mutates what it
 * passed or got back never changes stored state. Every check-and-write runs
 * without yielding to the event loop, which is what makes `createSession`
 * first-writer-wins and `appendVersion`/`setTemplate` compare-and-set atomic
 * within the process. `appendVersion` also requires the next version number
 * (`current.version + 1`), so a hash that went A → B → A does not let a stale
 * writer through. Nothing survives the process; use `sqliteStore` to persist.
 */
export function memoryStore(options: MemoryStoreOptions = {}): ClosablePromptStore {
  const clock = options.clock ?? (() => new Date())
  const templates = new Map<string, StoredTemplate>()
  const sessions = new Map<string, SessionVersion[]>()
  const usage = new Map<string, UsageOutcome[]>()
  const kinds = new Map<string, SessionKind>()
  /** Per session: its calls (oldest first) and the number the last one took, which pruning never lowers. */
  const recorded = new Map<string, { calls: CallRecord[]; last: number }>()
  /** Per session: prefix hash → the first version with it. */
  const prefixes = new Map<string, Map<string, number>>()
  let closed = false

  const ensureOpen = (operation: string): void => {
    if (closed)
      throw new StoreError({ code: 'closed', operation, detail: 'the store was closed; open a new one' })
  }

  const recordOf = (id: string, versions: SessionVersion[]): SessionRecord => {
    const kind = kinds.get(id)
    return {
      id,
      current: structuredClone(versions[versions.length - 1]!),
      versions: versions.length,
      ...(kind === undefined ? {} : { kind }),
    }
  }

  const indexPrefix = (id: string, version: SessionVersion): void => {
    if (version.prefixHash === undefined) return
    const known = prefixes.get(id) ?? new Map<string, number>()
    if (!known.has(version.prefixHash)) known.set(version.prefixHash, version.version)
    prefixes.set(id, known)
  }

  const forget = (id: string): void => {
    sessions.delete(id)
    usage.delete(id)
    kinds.delete(id)
    recorded.delete(id)
    prefixes.delete(id)
  }

  return {
    async getTemplate(workspace) {
      ensureOpen('getTemplate')
      const stored = templates.get(workspace)
      return stored === undefined ? undefined : structuredClone(stored)
    },

    async setTemplate(workspace, template, expectedHash) {
      ensureOpen('setTemplate')
      const actualHash = templates.get(workspace)?.hash ?? null
      if (expectedHash !== undefined && expectedHash !== actualHash) {
        throw new StoreConflictError({
          operation: 'setTemplate',
          subject: { kind: 'template', workspace },
          expectedHash,
          actualHash,
        })
      }
      const stored: StoredTemplate = {
        workspace,
        template: template.template,
        dialect: template.dialect,
        hash: hashText(template.template),
        updatedAt: clock().toISOString(),
      }
      templates.set(workspace, stored)
      return structuredClone(stored)
    },

    async getSession(id) {
      ensureOpen('getSession')
      const versions = sessions.get(id)
      return versions === undefined ? undefined : recordOf(id, versions)
    },

    async createSession(id, version, options = {}) {
      ensureOpen('createSession')
      const existing = sessions.get(id)
      if (existing !== undefined) return recordOf(id, existing)
      if (version.version !== 1) {
        throw new StoreError({
          code: 'invalid',
          operation: 'createSession',
          subject: { kind: 'session', id },
          detail: `the first version must be numbered 1, got ${version.version}`,
        })
      }
      const versions = [structuredClone(version)]
      sessions.set(id, versions)
      if (options.kind !== undefined) kinds.set(id, options.kind)
      indexPrefix(id, version)
      return recordOf(id, versions)
    },

    async appendVersion(id, version, expectedHash) {
      ensureOpen('appendVersion')
      const subject = { kind: 'session', id } as const
      const versions = sessions.get(id)
      if (versions === undefined) {
        throw new StoreError({
          code: 'not-found',
          operation: 'appendVersion',
          subject,
          detail: 'no such session; create it with createSession first',
        })
      }
      const current = versions[versions.length - 1]!
      if (current.hash !== expectedHash) {
        throw new StoreConflictError({
          operation: 'appendVersion',
          subject,
          expectedHash,
          actualHash: current.hash,
        })
      }
      if (version.version !== current.version + 1) {
        throw new StoreConflictError({
          operation: 'appendVersion',
          subject,
          expectedHash,
          actualHash: current.hash,
          reason: `version ${version.version} is not the next one (the latest is ${current.version})`,
        })
      }
      versions.push(structuredClone(version))
      indexPrefix(id, version)
      return recordOf(id, versions)
    },

    async history(id) {
      ensureOpen('history')
      return structuredClone(sessions.get(id) ?? [])
    },

    async recordUsage(id, outcome) {
      ensureOpen('recordUsage')
      if (!sessions.has(id)) {
        throw new StoreError({
          code: 'not-found',
          operation: 'recordUsage',
          subject: { kind: 'session', id },
          detail: 'no such session; construct it before recording its usage',
        })
      }
      const list = usage.get(id) ?? []
      list.push(structuredClone(outcome))
      usage.set(id, list)
    },

    async usage(id) {
      ensureOpen('usage')
      return structuredClone(usage.get(id) ?? [])
    },

    async recordCall(call) {
      ensureOpen('recordCall')
      checkCall(call, sessions.has(call.session) ? (kinds.get(call.session) ?? null) : undefined)
      const entry = recorded.get(call.session) ?? { calls: [], last: 0 }
      const stored: CallRecord = { ...structuredClone(call), call: entry.last + 1 }
      entry.calls.push(stored)
      entry.last = stored.call
      recorded.set(call.session, entry)
      return structuredClone(stored)
    },

    async calls(id, range = {}) {
      ensureOpen('calls')
      return structuredClone((recorded.get(id)?.calls ?? []).filter((c) => inRange(c.call, range)))
    },

    async findVersionByPrefix(id, prefixHash) {
      ensureOpen('findVersionByPrefix')
      return prefixes.get(id)?.get(prefixHash)
    },

    async deleteSession(id) {
      ensureOpen('deleteSession')
      const existed = sessions.has(id)
      forget(id)
      return existed
    },

    async pruneCalls(olderThan) {
      ensureOpen('pruneCalls')
      const before = olderThan.getTime()
      const result = { calls: 0, sessions: 0 }
      for (const [id, entry] of recorded) {
        const kept = entry.calls.filter((c) => Date.parse(c.startedAt) >= before)
        if (kept.length === entry.calls.length) continue
        result.calls += entry.calls.length - kept.length
        entry.calls = kept
        if (kept.length === 0) {
          forget(id)
          result.sessions++
        }
      }
      return result
    },

    async close() {
      closed = true
      templates.clear()
      sessions.clear()
      usage.clear()
      kinds.clear()
      recorded.clear()
      prefixes.clear()
    },
  }
}
