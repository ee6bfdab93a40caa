import type * as Pg from 'pg'
import { StoreConflictError, StoreError, type StoreSubject } from '../compile/store-errors.js'
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
import { type Blob, decodeVersion, encodeVersion, referencedBlobs, type VersionRow } from './ledger.js'
import { loadOptional } from './optional.js'
import { postgresRecordings } from './postgres-calls.js'
import { MIGRATION_LOCK, POSTGRES_MIGRATIONS } from './postgres-schema.js'

export interface PostgresStoreOptions extends StoreClockOption {
  /** `postgres://user:password@host:port/database`; or pass `pool`. */
  connectionString?: string
  /** A `pg.Pool` the caller owns (it is not ended by `close()`). */
  pool?: Pg.Pool
  /** A schema to hold the tables (created when missing); defaults to the connection's search path. */
  schema?: string
  /** Connections of the pool this store creates; defaults to 10. */
  max?: number
}

/** A server address without its password, for messages. */
function redact(connectionString: string | undefined): string {
  if (connectionString === undefined) return 'postgres (a caller-owned pool)'
  try {
    const url = new URL(connectionString)
    url.password = ''
    return url.toString()
  } catch {
    return 'postgres (an unparsable connection string)'
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/**
 * The shared `PromptStore` (SPEC §8) for a fleet of agent servers: PostgreSQL
 * through `pg` (an optional peer dependency, loaded when a store is opened),
 * with the same content-addressed ledger as `sqliteStore`. Each
 * check-and-write is one statement at READ COMMITTED: a create is `INSERT …
 * ON CONFLICT DO NOTHING` (first writer wins), an append an `UPDATE … WHERE
 * current_hash = $expected AND versions = $n - 1` that a concurrent winner
 * makes match nothing (compare-and-set), and the version row is inserted in
 * the same statement. Blobs go first in their own statement, in hash order;
 * an orphan blob left by a lost race is harmless. Migrations run once per
 * store, under an advisory lock.
 */
export function postgresStore(options: PostgresStoreOptions): PersistentPromptStore {
  if (options.pool === undefined && options.connectionString === undefined) {
    throw new StoreError({
      code: 'invalid',
      operation: 'open',
      detail: 'postgresStore needs a connectionString (postgres://…) or a pool',
    })
  }
  const pg = loadOptional<typeof Pg & { default?: typeof Pg }>('pg', 'postgresStore', 'pg@8')
  const Pool = (pg.default ?? pg).Pool
  const ownsPool = options.pool === undefined
  const pool =
    options.pool ?? new Pool({ connectionString: options.connectionString, max: options.max ?? 10 })
  // An idle client's error (the server restarted) must not crash the process; the next query reports it.
  if (ownsPool) pool.on('error', () => {})
  const clock = options.clock ?? (() => new Date())
  const s = options.schema === undefined ? '' : `${quoteIdent(options.schema)}.`
  const location = redact(options.connectionString)
  const cache = new BlobCache()
  /** Blobs this store wrote or read: never deleted, so never sent again. */
  const known = new Set<string>()
  let closed = false

  const migrate = async (): Promise<void> => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
      if (options.schema !== undefined)
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(options.schema)}`)
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}schema_version (version integer PRIMARY KEY, applied_at text NOT NULL)`,
      )
      const { rows } = await client.query(`SELECT max(version) AS v FROM ${s}schema_version`)
      const current = Number(rows[0]?.v ?? 0)
      if (current > POSTGRES_MIGRATIONS.length) {
        throw new StoreError({
          code: 'invalid',
          operation: 'open',
          detail: `${location} has schema version ${current}, newer than this sysprompt knows (${POSTGRES_MIGRATIONS.length}); upgrade sysprompt`,
        })
      }
      for (let v = current + 1; v <= POSTGRES_MIGRATIONS.length; v++) {
        await client.query(POSTGRES_MIGRATIONS[v - 1]!.replaceAll('{s}', s))
        await client.query(`INSERT INTO ${s}schema_version (version, applied_at) VALUES ($1, $2)`, [
          v,
          new Date().toISOString(),
        ])
      }
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }
  let ready: Promise<void> | undefined

  const run = async <T>(
    operation: string,
    subject: StoreSubject | undefined,
    action: () => Promise<T>,
  ): Promise<T> => {
    if (closed) throw closedError(operation)
    try {
      // A failed migration (server down) is tried again by the next call.
      ready ??= migrate().catch((error) => {
        ready = undefined
        throw error
      })
      await ready
      return await action()
    } catch (error) {
      throw driverFailure(operation, subject, error)
    }
  }
  const session = (id: string) => ({ kind: 'session', id }) as const
  const query = async (text: string, values: unknown[] = []) => (await pool.query(text, values)).rows

  const fetchBlobs = async (hashes: string[], into: Map<string, string>): Promise<void> => {
    const missing: string[] = []
    for (const hash of hashes) {
      const body = cache.get(hash)
      if (body === undefined) missing.push(hash)
      else into.set(hash, body)
    }
    if (missing.length === 0) return
    for (const row of await query(`SELECT hash, body FROM ${s}blobs WHERE hash = ANY($1)`, [missing])) {
      into.set(row.hash, row.body)
    }
  }

  const decodeAll = async (id: string, rows: VersionRow[]): Promise<SessionVersion[]> => {
    const blobs = new Map<string, string>()
    for (const row of rows)
      if ((row as { blob?: string }).blob !== undefined) blobs.set(row.body, (row as { blob?: string }).blob!)
    await fetchBlobs(
      rows.map((r) => r.body).filter((h) => !blobs.has(h)),
      blobs,
    )
    const referenced = new Set<string>()
    for (const row of rows) {
      const body = blobs.get(row.body)
      if (body !== undefined) for (const hash of referencedBlobs(body)) referenced.add(hash)
    }
    await fetchBlobs([...referenced], blobs)
    const versions = rows.map((row) =>
      decodeVersion(
        id,
        row,
        (hash) => blobs.get(hash),
        (hash) => cache.get(hash) !== undefined,
      ),
    )
    for (const [hash, body] of blobs) {
      cache.set(hash, body)
      known.add(hash)
    }
    return versions
  }

  const writeBlobs = async (blobs: Blob[]): Promise<void> => {
    const fresh = blobs.filter((b) => !known.has(b.hash))
    if (fresh.length === 0) return
    await query(
      `INSERT INTO ${s}blobs (hash, body) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
      [fresh.map((b) => b.hash), fresh.map((b) => b.body)],
    )
    for (const b of fresh) known.add(b.hash)
  }

  const readRecord = async (id: string): Promise<SessionRecord | undefined> => {
    const rows = await query(
      `SELECT s.versions AS count, s.kind, v.version, v.hash, v.tokens, v.reason, v.at, v.body,
       v.prefix_hash AS "prefixHash", b.body AS blob FROM ${s}sessions s JOIN ${s}versions v ON v.session_id = s.id AND v.version = s.versions
       LEFT JOIN ${s}blobs b ON b.hash = v.body WHERE s.id = $1`,
      [id],
    )
    if (rows.length === 0) return undefined
    const [current] = await decodeAll(id, rows as VersionRow[])
    const kind = rows[0].kind as SessionKind | null
    return { id, current: current!, versions: rows[0].count, ...(kind === null ? {} : { kind }) }
  }

  const storedHead = async (id: string) =>
    (await query(`SELECT versions, current_hash FROM ${s}sessions WHERE id = $1`, [id]))[0] as
      | { versions: number; current_hash: string }
      | undefined

  const templateConflict = (workspace: string, expectedHash: string | null, actualHash: string | null) =>
    new StoreConflictError({
      operation: 'setTemplate',
      subject: { kind: 'template', workspace },
      expectedHash,
      actualHash,
    })

  return {
    location,
    ...postgresRecordings(pool, s, run),

    getTemplate(workspace) {
      return run('getTemplate', { kind: 'template', workspace }, async () => {
        const [row] = await query(`SELECT * FROM ${s}templates WHERE workspace = $1`, [workspace])
        return row === undefined
          ? undefined
          : {
              workspace,
              template: row.template,
              dialect: row.dialect,
              hash: row.hash,
              updatedAt: row.updated_at,
            }
      })
    },

    setTemplate(workspace, template, expectedHash) {
      return run('setTemplate', { kind: 'template', workspace }, async () => {
        const next: StoredTemplate = {
          workspace,
          template: template.template,
          dialect: template.dialect,
          hash: hashText(template.template),
          updatedAt: clock().toISOString(),
        }
        const values = [workspace, next.template, next.dialect, next.hash, next.updatedAt]
        const insert = `INSERT INTO ${s}templates (workspace, template, dialect, hash, updated_at) VALUES ($1, $2, $3, $4, $5)`
        let written: unknown[]
        if (expectedHash === undefined) {
          written = await query(
            `${insert} ON CONFLICT (workspace) DO UPDATE SET template = excluded.template,
             dialect = excluded.dialect, hash = excluded.hash, updated_at = excluded.updated_at RETURNING 1`,
            values,
          )
        } else if (expectedHash === null) {
          written = await query(`${insert} ON CONFLICT DO NOTHING RETURNING 1`, values)
        } else {
          written = await query(
            `UPDATE ${s}templates SET template = $2, dialect = $3, hash = $4, updated_at = $5
             WHERE workspace = $1 AND hash = $6 RETURNING 1`,
            [...values, expectedHash],
          )
        }
        if (written.length === 0) {
          const [row] = await query(`SELECT hash FROM ${s}templates WHERE workspace = $1`, [workspace])
          throw templateConflict(workspace, expectedHash ?? null, row?.hash ?? null)
        }
        return next
      })
    },

    getSession(id) {
      return run('getSession', session(id), () => readRecord(id))
    },

    createSession(id, version, createOptions = {}) {
      return run('createSession', session(id), async () => {
        if (version.version !== 1) throw invalidFirst(id, version.version)
        const { blobs, row } = encodeVersion(version)
        await writeBlobs(blobs)
        const kind = createOptions.kind
        const inserted = await query(
          `WITH s AS (INSERT INTO ${s}sessions (id, versions, current_hash, created_at, updated_at, kind)
             VALUES ($1, 1, $2, $3, $3, $7) ON CONFLICT DO NOTHING RETURNING id)
           INSERT INTO ${s}versions (session_id, version, hash, tokens, reason, at, body, prefix_hash)
             SELECT id, 1, $2, $4, $5, $3, $6, $8 FROM s RETURNING version`,
          [id, row.hash, row.at, row.tokens, row.reason, row.body, kind ?? null, row.prefixHash],
        )
        if (inserted.length === 1)
          return {
            id,
            current: structuredClone(version),
            versions: 1,
            ...(kind === undefined ? {} : { kind }),
          }
        const winner = await readRecord(id)
        if (winner === undefined)
          throw notFound('createSession', id, 'it was deleted while being created; retry')
        return winner
      })
    },

    appendVersion(id, version, expectedHash) {
      return run('appendVersion', session(id), async () => {
        const { blobs, row } = encodeVersion(version)
        const head = await storedHead(id)
        if (head === undefined) throw notFound('appendVersion', id)
        if (head.current_hash !== expectedHash || head.versions + 1 !== version.version) {
          throw appendConflict(id, expectedHash, version.version, {
            hash: head.current_hash,
            version: head.versions,
          })
        }
        await writeBlobs(blobs)
        const inserted = await query(
          `WITH u AS (UPDATE ${s}sessions SET versions = $2, current_hash = $3, updated_at = $4
             WHERE id = $1 AND current_hash = $7 AND versions = $2 - 1 RETURNING id)
           INSERT INTO ${s}versions (session_id, version, hash, tokens, reason, at, body, prefix_hash)
             SELECT id, $2, $3, $5, $6, $4, $8, $9 FROM u RETURNING version`,
          [id, row.version, row.hash, row.at, row.tokens, row.reason, expectedHash, row.body, row.prefixHash],
        )
        if (inserted.length === 1) return { id, current: structuredClone(version), versions: row.version }
        const moved = await storedHead(id)
        if (moved === undefined) throw notFound('appendVersion', id)
        throw appendConflict(id, expectedHash, version.version, {
          hash: moved.current_hash,
          version: moved.versions,
        })
      })
    },

    history(id) {
      return run('history', session(id), async () => {
        const rows = await query(
          `SELECT version, hash, tokens, reason, at, body, prefix_hash AS "prefixHash"
           FROM ${s}versions WHERE session_id = $1 ORDER BY version`,
          [id],
        )
        return decodeAll(id, rows as VersionRow[])
      })
    },

    recordUsage(id, outcome) {
      return run('recordUsage', session(id), async () => {
        const inserted = await query(
          `INSERT INTO ${s}usage (session_id, version, outcome)
           SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM ${s}sessions WHERE id = $1) RETURNING 1`,
          [id, outcome.version, JSON.stringify(outcome)],
        )
        if (inserted.length === 0)
          throw notFound('recordUsage', id, 'construct it before recording its usage')
      })
    },

    usage(id) {
      return run('usage', session(id), async () =>
        (await query(`SELECT outcome FROM ${s}usage WHERE session_id = $1 ORDER BY seq`, [id])).map(
          (row) => JSON.parse(row.outcome) as UsageOutcome,
        ),
      )
    },

    listSessions(listOptions = {}) {
      return run('listSessions', undefined, async () =>
        (
          await query(
            `SELECT s.id, s.versions, s.current_hash AS hash, v.tokens, v.reason, s.created_at, s.updated_at,
             s.kind, s.calls FROM ${s}sessions s JOIN ${s}versions v ON v.session_id = s.id AND v.version = s.versions
             ORDER BY s.updated_at DESC, s.id LIMIT $1`,
            [listOptions.limit ?? null],
          )
        ).map(
          (row): SessionSummary => ({
            id: row.id,
            versions: row.versions,
            hash: row.hash,
            tokens: row.tokens,
            reason: row.reason,
            createdAt: row.created_at,
            updatedAt: row.updated_at,
            ...(row.kind === null ? {} : { kind: row.kind, calls: row.calls }),
          }),
        ),
      )
    },

    async close() {
      if (closed) return
      closed = true
      await ready?.catch(() => undefined)
      if (ownsPool) await pool.end()
    },
  }
}
