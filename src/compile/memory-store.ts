import { hashText } from '../shared/hash.js'
import { StoreConflictError, StoreError } from './store-errors.js'
import type { PromptStore, SessionRecord, SessionVersion, StoredTemplate, UsageOutcome } from './types.js'

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
  let closed = false

  const ensureOpen = (operation: string): void => {
    if (closed)
      throw new StoreError({ code: 'closed', operation, detail: 'the store was closed; open a new one' })
  }

  const recordOf = (id: string, versions: SessionVersion[]): SessionRecord => ({
    id,
    current: structuredClone(versions[versions.length - 1]!),
    versions: versions.length,
  })

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

    async createSession(id, version) {
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

    async close() {
      closed = true
      templates.clear()
      sessions.clear()
      usage.clear()
    },
  }
}
