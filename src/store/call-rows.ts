import type { CallRecord } from '../compile/call-record.js'
import { startedMs } from '../compile/recordings.js'

/**
 * The columns of a `calls` row, in the order `callValues` gives them; the
 * SQL drivers share this mapping. Absent optional fields are NULL; parts,
 * marks, message hashes, usage and diagnostics are JSON (text in SQLite,
 * jsonb in PostgreSQL). `started_ms` is what pruning compares and indexes.
 */
export const CALL_COLUMNS = [
  'session_id',
  'call',
  'version',
  'conversation',
  'harness',
  'harness_version',
  'provider',
  'endpoint',
  'model',
  'status',
  'streamed',
  'started_at',
  'started_ms',
  'first_byte_at',
  'ended_at',
  'prefix_hash',
  'parts',
  'marks',
  'prompt_cache_key',
  'message_hashes',
  'usage',
  'diagnostics',
  'partial',
] as const

/** The columns that hold JSON. */
export const JSON_COLUMNS: ReadonlySet<string> = new Set([
  'parts',
  'marks',
  'message_hashes',
  'usage',
  'diagnostics',
])

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value)
const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))

/**
 * A call's values for every column but `session_id` and `call` (which the
 * driver fills), in `CALL_COLUMNS` order; booleans as 0 and 1.
 */
export function callValues(call: Omit<CallRecord, 'call'>): unknown[] {
  return [
    call.version,
    call.conversation,
    call.harness,
    orNull(call.harnessVersion),
    call.provider,
    call.endpoint,
    call.model,
    call.status,
    call.streamed ? 1 : 0,
    call.startedAt,
    startedMs(call),
    orNull(call.firstByteAt),
    orNull(call.endedAt),
    call.prefixHash,
    json(call.parts),
    json(call.marks),
    orNull(call.promptCacheKey),
    json(call.messageHashes),
    json(call.usage),
    json(call.diagnostics),
    call.partial === undefined ? null : call.partial ? 1 : 0,
  ]
}

/** A stored row back as the record it was; `parse` reads a JSON column as the driver returns it. */
export function callOf(row: Record<string, unknown>, parse: (value: unknown) => unknown): CallRecord {
  const optional = <K extends keyof CallRecord>(key: K, value: unknown): Partial<CallRecord> =>
    value === null || value === undefined ? {} : ({ [key]: value } as Partial<CallRecord>)
  return {
    session: row.session_id as string,
    version: Number(row.version),
    call: Number(row.call),
    conversation: row.conversation as string,
    harness: row.harness as string,
    ...optional('harnessVersion', row.harness_version),
    provider: row.provider as CallRecord['provider'],
    endpoint: row.endpoint as CallRecord['endpoint'],
    model: row.model as string,
    status: Number(row.status),
    streamed: Boolean(Number(row.streamed)),
    startedAt: row.started_at as string,
    ...optional('firstByteAt', row.first_byte_at),
    ...optional('endedAt', row.ended_at),
    prefixHash: row.prefix_hash as string,
    parts: parse(row.parts) as CallRecord['parts'],
    marks: parse(row.marks) as CallRecord['marks'],
    ...optional('promptCacheKey', row.prompt_cache_key),
    messageHashes: parse(row.message_hashes) as string[],
    ...optional('usage', row.usage === null ? null : parse(row.usage)),
    ...(row.diagnostics === null || row.diagnostics === undefined
      ? {}
      : { diagnostics: parse(row.diagnostics) }),
    ...optional('partial', row.partial === null ? null : Boolean(Number(row.partial))),
  }
}
