import type BetterSqlite3 from 'better-sqlite3'
import type { CallRecord } from '../compile/call-record.js'
import { refusedCall } from '../compile/recordings.js'
import type { SessionKind } from '../compile/types.js'
import { CALL_COLUMNS, callOf, callValues } from './call-rows.js'
import type { RecordingMethods } from './common.js'

/**
 * The statements of recordings in SQLite, by name, so a test can read
 * their query plans: each one finds its rows through a key or an index,
 * so appending call 1 000 reads what appending call 1 read.
 */
export const SQLITE_CALL_SQL = {
  /** Numbers the call: one row update of the session, which also refuses a session that is not a recording. */
  nextCall: "UPDATE sessions SET calls = calls + 1 WHERE id = ? AND kind = 'recording' RETURNING calls",
  putCall: `INSERT INTO calls (${CALL_COLUMNS.join(', ')}) VALUES (${CALL_COLUMNS.map(() => '?').join(', ')})`,
  kind: 'SELECT kind FROM sessions WHERE id = ?',
  calls: 'SELECT * FROM calls WHERE session_id = ? AND call BETWEEN ? AND ? ORDER BY call',
  findPrefix:
    'SELECT version FROM versions WHERE session_id = ? AND prefix_hash = ? ORDER BY version LIMIT 1',
  deleteCalls: 'DELETE FROM calls WHERE session_id = ?',
  deleteUsage: 'DELETE FROM usage WHERE session_id = ?',
  deleteVersions: 'DELETE FROM versions WHERE session_id = ?',
  deleteSession: 'DELETE FROM sessions WHERE id = ?',
  prunedSessions: 'SELECT DISTINCT session_id FROM calls WHERE started_ms < ?',
  pruneCalls: 'DELETE FROM calls WHERE started_ms < ?',
  /** One of the sessions pruning touched, when it is a recording left without a call. */
  emptyRecording: `SELECT 1 FROM sessions WHERE id = ? AND kind = 'recording'
    AND NOT EXISTS (SELECT 1 FROM calls WHERE session_id = ?)`,
} as const

type SyncRun = <T>(
  operation: string,
  subject: { kind: 'session'; id: string } | undefined,
  action: () => T,
) => Promise<T>

/** The recording methods of `sqliteStore`: each write one `BEGIN IMMEDIATE` transaction. */
export function sqliteRecordings(db: BetterSqlite3.Database, run: SyncRun): RecordingMethods {
  const q = Object.fromEntries(
    Object.entries(SQLITE_CALL_SQL).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Record<keyof typeof SQLITE_CALL_SQL, BetterSqlite3.Statement>
  const session = (id: string) => ({ kind: 'session', id }) as const

  const recordTx = db.transaction((call: Omit<CallRecord, 'call'>, values: unknown[]): number => {
    const next = q.nextCall.pluck().get(call.session) as number | undefined
    if (next === undefined) {
      const row = q.kind.get(call.session) as { kind: SessionKind | null } | undefined
      throw refusedCall(call.session, row === undefined ? undefined : row.kind)
    }
    q.putCall.run(call.session, next, ...values)
    return next
  })

  const dropSession = (id: string): boolean => {
    q.deleteCalls.run(id)
    q.deleteUsage.run(id)
    q.deleteVersions.run(id)
    return q.deleteSession.run(id).changes > 0
  }
  const deleteTx = db.transaction(dropSession)

  const pruneTx = db.transaction((before: number) => {
    const touched = q.prunedSessions.pluck().all(before) as string[]
    const calls = q.pruneCalls.run(before).changes
    let sessions = 0
    for (const id of touched) {
      if (q.emptyRecording.get(id, id) !== undefined && dropSession(id)) sessions++
    }
    return { calls, sessions }
  })

  return {
    recordCall(call) {
      return run('recordCall', session(call.session), () => {
        const values = callValues(call)
        const number = recordTx.immediate(call, values)
        return { ...structuredClone(call), call: number } as CallRecord
      })
    },

    calls(id, range = {}) {
      return run('calls', session(id), () =>
        (
          q.calls.all(id, range.from ?? 0, range.to ?? Number.MAX_SAFE_INTEGER) as Record<string, unknown>[]
        ).map((row) => callOf(row, (text) => JSON.parse(text as string))),
      )
    },

    findVersionByPrefix(id, prefixHash) {
      return run(
        'findVersionByPrefix',
        session(id),
        () => q.findPrefix.pluck().get(id, prefixHash) as number | undefined,
      )
    },

    deleteSession(id) {
      return run('deleteSession', session(id), () => deleteTx.immediate(id))
    },

    pruneCalls(olderThan) {
      return run('pruneCalls', undefined, () => pruneTx.immediate(olderThan.getTime()))
    },
  }
}
