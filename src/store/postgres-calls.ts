import type * as Pg from 'pg'
import type { CallRecord } from '../compile/call-record.js'
import { refusedCall } from '../compile/recordings.js'
import type { StoreSubject } from '../compile/store-errors.js'
import type { SessionKind } from '../compile/types.js'
import { CALL_COLUMNS, callOf, callValues, JSON_COLUMNS } from './call-rows.js'
import type { RecordingMethods } from './common.js'

/** `$n`, cast to jsonb for a JSON column. */
const placeholder = (column: string, n: number) => (JSON_COLUMNS.has(column) ? `$${n}::jsonb` : `$${n}`)

/**
 * The statements of recordings in PostgreSQL for the schema prefix `s`, by
 * name, so a test can read their plans. A call is one statement: the
 * session's counter is bumped (its row lock orders concurrent callers, so
 * no two take one number) and the call inserted with the number it got;
 * nothing reads the calls before it.
 */
export function postgresCallSql(s: string) {
  return {
    recordCall: `WITH n AS (UPDATE ${s}sessions SET calls = calls + 1 WHERE id = $1 AND kind = 'recording' RETURNING calls)
      INSERT INTO ${s}calls (${CALL_COLUMNS.join(', ')})
      SELECT $1, n.calls, ${CALL_COLUMNS.slice(2)
        .map((c, i) => placeholder(c, i + 2))
        .join(', ')} FROM n RETURNING call`,
    kind: `SELECT kind FROM ${s}sessions WHERE id = $1`,
    calls: `SELECT * FROM ${s}calls WHERE session_id = $1 AND call BETWEEN $2 AND $3 ORDER BY call`,
    findPrefix: `SELECT version FROM ${s}versions WHERE session_id = $1 AND prefix_hash = $2 ORDER BY version LIMIT 1`,
    lockSession: `SELECT 1 FROM ${s}sessions WHERE id = $1 FOR UPDATE`,
    deleteCalls: `DELETE FROM ${s}calls WHERE session_id = $1`,
    deleteUsage: `DELETE FROM ${s}usage WHERE session_id = $1`,
    deleteVersions: `DELETE FROM ${s}versions WHERE session_id = $1`,
    deleteSession: `DELETE FROM ${s}sessions WHERE id = $1 RETURNING 1`,
    pruneCalls: `WITH d AS (DELETE FROM ${s}calls WHERE started_ms < $1 RETURNING session_id)
      SELECT session_id, count(*)::int AS n FROM d GROUP BY session_id`,
    /** Of the sessions pruning touched, the recordings left without a call, locked for deletion. */
    emptyRecordings: `SELECT id FROM ${s}sessions WHERE id = ANY($1) AND kind = 'recording'
      AND NOT EXISTS (SELECT 1 FROM ${s}calls WHERE session_id = id) FOR UPDATE`,
  }
}

type AsyncRun = <T>(
  operation: string,
  subject: StoreSubject | undefined,
  action: () => Promise<T>,
) => Promise<T>

/** The recording methods of `postgresStore`; deletions run in one transaction that first locks the session row. */
export function postgresRecordings(pool: Pg.Pool, s: string, run: AsyncRun): RecordingMethods {
  const sql = postgresCallSql(s)
  const query = async (text: string, values: unknown[] = []) => (await pool.query(text, values)).rows
  const session = (id: string) => ({ kind: 'session', id }) as const

  /** Runs `work` in a transaction on one client. */
  const transaction = async <T>(work: (client: Pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  const dropSession = async (client: Pg.PoolClient, id: string): Promise<boolean> => {
    // The lock first: a call or version written meanwhile commits before the deletes look.
    await client.query(sql.lockSession, [id])
    for (const text of [sql.deleteCalls, sql.deleteUsage, sql.deleteVersions]) await client.query(text, [id])
    return (await client.query(sql.deleteSession, [id])).rowCount === 1
  }

  return {
    recordCall(call) {
      return run('recordCall', session(call.session), async () => {
        const values = callValues(call)
        const [row] = await query(sql.recordCall, [call.session, ...values])
        if (row === undefined) {
          const [found] = await query(sql.kind, [call.session])
          throw refusedCall(
            call.session,
            found === undefined ? undefined : (found.kind as SessionKind | null),
          )
        }
        return { ...structuredClone(call), call: Number(row.call) } as CallRecord
      })
    },

    calls(id, range = {}) {
      return run('calls', session(id), async () =>
        (await query(sql.calls, [id, range.from ?? 0, range.to ?? 2_147_483_647])).map((row) =>
          // pg hands jsonb over parsed.
          callOf(row, (value) => value),
        ),
      )
    },

    findVersionByPrefix(id, prefixHash) {
      return run('findVersionByPrefix', session(id), async () => {
        const [row] = await query(sql.findPrefix, [id, prefixHash])
        return row === undefined ? undefined : Number(row.version)
      })
    },

    deleteSession(id) {
      return run('deleteSession', session(id), () => transaction((client) => dropSession(client, id)))
    },

    pruneCalls(olderThan) {
      return run('pruneCalls', undefined, () =>
        transaction(async (client) => {
          const pruned = (await client.query(sql.pruneCalls, [olderThan.getTime()])).rows
          const touched = pruned.map((r) => r.session_id as string)
          let sessions = 0
          if (touched.length > 0) {
            const empty = (await client.query(sql.emptyRecordings, [touched])).rows
            for (const { id } of empty) if (await dropSession(client, id)) sessions++
          }
          return { calls: pruned.reduce((sum, r) => sum + (r.n as number), 0), sessions }
        }),
      )
    },
  }
}
