import type BetterSqlite3 from 'better-sqlite3'
import { StoreConflictError, StoreError } from '../compile/store-errors.js'
import type {
  SessionKind,
  SessionRecord,
  SessionVersion,
  StoredTemplate,
  UsageOutcome,
} from '../compile/types.js'
import { hashText } from '../shared/hash.js'
import {
  appendConflict,
  BlobCache,
  closedError,
  driverFailure,
  invalidFirst,
  notFound,
  type PersistentPromptStore,
  type SessionSummary,
  type StoreClockOption,
} from './common.js'
import { type Blob, decodeVersion, encodeVersion, type VersionRow } from './ledger.js'
import { loadOptional } from './optional.js'
import { databaseFiles, defaultStatePath, ensurePrivateFile, prepareDatabasePath } from './paths.js'
import { sqliteRecordings } from './sqlite-calls.js'
import { SQLITE_MIGRATIONS } from './sqlite-schema.js'

export interface SqliteStoreOptions extends StoreClockOption {
  /** The database file; defaults to `defaultStatePath()`. Refused when it is a link or not a regular file. */
  path?: string
  /** How long a write waits for another process's lock, in ms; defaults to 30 000. */
  busyTimeoutMs?: number
  /** Create the file's directory (private to the user) when missing; the default location always does. */
  createParent?: boolean
}

type Database = BetterSqlite3.Database

function open(path: string, busyTimeoutMs: number, createParent: boolean): Database {
  prepareDatabasePath(path, { createParent })
  const Driver = loadOptional<typeof BetterSqlite3>('better-sqlite3', 'sqliteStore', 'better-sqlite3@13')
  let db: Database | undefined
  try {
    db = new Driver(path, { timeout: busyTimeoutMs })
    db.pragma('journal_mode = WAL')
    // WAL with synchronous NORMAL survives a killed process; only an OS crash may lose the last commits.
    db.pragma('synchronous = NORMAL')
    migrate(db, path)
    // SQLite gives its -wal and -shm files the database's mode; checked all the same.
    for (const file of databaseFiles(path)) ensurePrivateFile(file)
    return db
  } catch (error) {
    db?.close()
    throw driverFailure('open', undefined, error)
  }
}

function migrate(db: Database, path: string): void {
  db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
    )
    const row = db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }
    const current = row.v ?? 0
    if (current > SQLITE_MIGRATIONS.length) {
      throw new StoreError({
        code: 'invalid',
        operation: 'open',
        detail: `${path} has schema version ${current}, newer than this sysprompt knows (${SQLITE_MIGRATIONS.length}); upgrade sysprompt`,
      })
    }
    for (let v = current + 1; v <= SQLITE_MIGRATIONS.length; v++) {
      db.exec(SQLITE_MIGRATIONS[v - 1]!)
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(
        v,
        new Date().toISOString(),
      )
    }
  }).immediate()
}

interface TemplateRow {
  workspace: string
  template: string
  dialect: 'mustache' | 'bracket'
  hash: string
  updated_at: string
}

const templateOf = (row: TemplateRow): StoredTemplate => ({
  workspace: row.workspace,
  template: row.template,
  dialect: row.dialect,
  hash: row.hash,
  updatedAt: row.updated_at,
})

/**
 * The embedded `PromptStore` (SPEC §8): one SQLite file in WAL mode through
 * better-sqlite3 (an optional peer dependency, loaded when a store is
 * opened). Content addressed: section texts, tool lists and version bodies
 * are stored once by hash; a session row holds ids, reasons and times.
 * Every check-and-write is one `BEGIN IMMEDIATE` transaction, so writers in
 * other processes serialise on the file lock (waiting up to
 * `busyTimeoutMs`), creates are first-writer-wins and appends
 * compare-and-set. Reads check every hash on the way out. A process killed
 * mid-write leaves the last committed state.
 */
export function sqliteStore(options: SqliteStoreOptions = {}): PersistentPromptStore {
  const path = options.path ?? defaultStatePath()
  const clock = options.clock ?? (() => new Date())
  const db = open(path, options.busyTimeoutMs ?? 30_000, options.createParent ?? options.path === undefined)
  const cache = new BlobCache()
  let closed = false

  const q = {
    getTemplate: db.prepare('SELECT * FROM templates WHERE workspace = ?'),
    putTemplate: db.prepare(
      `INSERT INTO templates (workspace, template, dialect, hash, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (workspace) DO UPDATE SET template = excluded.template, dialect = excluded.dialect,
       hash = excluded.hash, updated_at = excluded.updated_at`,
    ),
    session: db.prepare('SELECT versions, current_hash FROM sessions WHERE id = ?'),
    current: db.prepare(
      `SELECT s.versions AS count, s.kind, v.version, v.hash, v.tokens, v.reason, v.at, v.body,
       v.prefix_hash AS "prefixHash"
       FROM sessions s JOIN versions v ON v.session_id = s.id AND v.version = s.versions WHERE s.id = ?`,
    ),
    history: db.prepare(
      `SELECT version, hash, tokens, reason, at, body, prefix_hash AS "prefixHash"
       FROM versions WHERE session_id = ? ORDER BY version`,
    ),
    blob: db.prepare('SELECT body FROM blobs WHERE hash = ?').pluck(),
    putBlob: db.prepare('INSERT OR IGNORE INTO blobs (hash, body) VALUES (?, ?)'),
    createSession: db.prepare(
      'INSERT INTO sessions (id, versions, current_hash, created_at, updated_at, kind) VALUES (?, 1, ?, ?, ?, ?)',
    ),
    bumpSession: db.prepare(
      'UPDATE sessions SET versions = ?, current_hash = ?, updated_at = ? WHERE id = ?',
    ),
    putVersion: db.prepare(
      `INSERT INTO versions (session_id, version, hash, tokens, reason, at, body, prefix_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    putUsage: db.prepare(
      `INSERT INTO usage (session_id, seq, version, outcome)
       VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM usage WHERE session_id = ?), ?, ?)`,
    ),
    usage: db.prepare('SELECT outcome FROM usage WHERE session_id = ? ORDER BY seq').pluck(),
    list: db.prepare(
      `SELECT s.id, s.versions, s.current_hash AS hash, v.tokens, v.reason, s.created_at, s.updated_at,
       s.kind, s.calls FROM sessions s JOIN versions v ON v.session_id = s.id AND v.version = s.versions
       ORDER BY s.updated_at DESC, s.id LIMIT ?`,
    ),
  }

  const decode = (id: string, row: VersionRow): SessionVersion => {
    const fetched = new Map<string, string>()
    const read = (hash: string): string | undefined => {
      const cached = cache.get(hash)
      if (cached !== undefined) return cached
      const body = q.blob.get(hash) as string | undefined
      if (body !== undefined) fetched.set(hash, body)
      return body
    }
    const version = decodeVersion(id, row, read, (hash) => cache.get(hash) !== undefined)
    // Only blobs that passed the checks are cached.
    for (const [hash, body] of fetched) cache.set(hash, body)
    return version
  }

  const writeBlobs = (blobs: Blob[]) => {
    for (const b of blobs) q.putBlob.run(b.hash, b.body)
  }

  const readRecord = (id: string): SessionRecord | undefined => {
    const row = q.current.get(id) as (VersionRow & { count: number; kind: SessionKind | null }) | undefined
    if (row === undefined) return undefined
    return {
      id,
      current: decode(id, row),
      versions: row.count,
      ...(row.kind === null ? {} : { kind: row.kind }),
    }
  }

  const createTx = db.transaction(
    (id: string, version: SessionVersion, kind: SessionKind | undefined): SessionRecord | undefined => {
      if (q.session.get(id) !== undefined) return undefined
      const { blobs, row } = encodeVersion(version)
      writeBlobs(blobs)
      q.createSession.run(id, row.hash, row.at, row.at, kind ?? null)
      q.putVersion.run(id, row.version, row.hash, row.tokens, row.reason, row.at, row.body, row.prefixHash)
      return { id, current: structuredClone(version), versions: 1, ...(kind === undefined ? {} : { kind }) }
    },
  )

  const appendTx = db.transaction(
    (id: string, version: SessionVersion, expectedHash: string): SessionRecord => {
      const stored = q.session.get(id) as { versions: number; current_hash: string } | undefined
      if (stored === undefined) throw notFound('appendVersion', id)
      if (stored.current_hash !== expectedHash || version.version !== stored.versions + 1) {
        throw appendConflict(id, expectedHash, version.version, {
          hash: stored.current_hash,
          version: stored.versions,
        })
      }
      const { blobs, row } = encodeVersion(version)
      writeBlobs(blobs)
      q.putVersion.run(id, row.version, row.hash, row.tokens, row.reason, row.at, row.body, row.prefixHash)
      q.bumpSession.run(row.version, row.hash, row.at, id)
      return { id, current: structuredClone(version), versions: row.version }
    },
  )

  const setTemplateTx = db.transaction(
    (
      workspace: string,
      template: { template: string; dialect: 'mustache' | 'bracket' },
      expectedHash?: string | null,
    ) => {
      const stored = q.getTemplate.get(workspace) as TemplateRow | undefined
      const actualHash = stored?.hash ?? null
      if (expectedHash !== undefined && expectedHash !== actualHash) {
        throw new StoreConflictError({
          operation: 'setTemplate',
          subject: { kind: 'template', workspace },
          expectedHash,
          actualHash,
        })
      }
      const next: StoredTemplate = {
        workspace,
        template: template.template,
        dialect: template.dialect,
        hash: hashText(template.template),
        updatedAt: clock().toISOString(),
      }
      q.putTemplate.run(workspace, next.template, next.dialect, next.hash, next.updatedAt)
      return next
    },
  )

  const usageTx = db.transaction((id: string, outcome: UsageOutcome) => {
    if (q.session.get(id) === undefined)
      throw notFound('recordUsage', id, 'construct it before recording its usage')
    q.putUsage.run(id, id, outcome.version, JSON.stringify(outcome))
  })

  /** Runs a synchronous database call as the async interface wants, with the store's errors. */
  const run = async <T>(
    operation: string,
    subject: { kind: 'session'; id: string } | { kind: 'template'; workspace: string } | undefined,
    action: () => T,
  ): Promise<T> => {
    if (closed) throw closedError(operation)
    try {
      return action()
    } catch (error) {
      throw driverFailure(operation, subject, error)
    }
  }
  const session = (id: string) => ({ kind: 'session', id }) as const

  return {
    location: path,
    ...sqliteRecordings(db, run),

    getTemplate(workspace) {
      return run('getTemplate', { kind: 'template', workspace }, () => {
        const row = q.getTemplate.get(workspace) as TemplateRow | undefined
        return row === undefined ? undefined : templateOf(row)
      })
    },

    setTemplate(workspace, template, expectedHash) {
      return run('setTemplate', { kind: 'template', workspace }, () =>
        setTemplateTx.immediate(workspace, template, expectedHash),
      )
    },

    getSession(id) {
      return run('getSession', session(id), () => readRecord(id))
    },

    createSession(id, version, createOptions = {}) {
      return run('createSession', session(id), () => {
        if (version.version !== 1) throw invalidFirst(id, version.version)
        return createTx.immediate(id, version, createOptions.kind) ?? readRecord(id)!
      })
    },

    appendVersion(id, version, expectedHash) {
      return run('appendVersion', session(id), () => appendTx.immediate(id, version, expectedHash))
    },

    history(id) {
      return run('history', session(id), () =>
        (q.history.all(id) as VersionRow[]).map((row) => decode(id, row)),
      )
    },

    recordUsage(id, outcome) {
      return run('recordUsage', session(id), () => usageTx.immediate(id, outcome))
    },

    usage(id) {
      return run('usage', session(id), () =>
        (q.usage.all(id) as string[]).map((text) => JSON.parse(text) as UsageOutcome),
      )
    },

    listSessions(listOptions = {}) {
      return run('listSessions', undefined, () =>
        (q.list.all(listOptions.limit ?? -1) as Record<string, unknown>[]).map(
          (row): SessionSummary => ({
            id: row.id as string,
            versions: row.versions as number,
            hash: row.hash as string,
            tokens: row.tokens as number,
            reason: row.reason as string,
            createdAt: row.created_at as string,
            updatedAt: row.updated_at as string,
            ...(row.kind === null ? {} : { kind: row.kind as SessionKind, calls: row.calls as number }),
          }),
        ),
      )
    },

    async close() {
      if (closed) return
      closed = true
      db.close()
    },
  }
}
