/*
 * The rules every store driver applies to recordings (SPEC §11), written
 * once: which session takes a call, when a call started, which calls a
 * range reads.
 */
import type { CallRecord } from './call-record.js'
import { StoreError } from './store-errors.js'
import type { CallRange, SessionKind } from './types.js'

/**
 * When a call started, in ms since the epoch: what `pruneCalls` compares
 * (the stored `startedAt` text is returned as written). An `invalid`
 * `StoreError` when it is not a time.
 */
export function startedMs(call: Pick<CallRecord, 'session' | 'startedAt'>): number {
  const ms = Date.parse(call.startedAt)
  if (Number.isNaN(ms)) {
    throw new StoreError({
      code: 'invalid',
      operation: 'recordCall',
      subject: { kind: 'session', id: call.session },
      detail: `startedAt "${call.startedAt}" is not an ISO 8601 time`,
    })
  }
  return ms
}

/** The error of a call whose session is missing (`undefined`) or not a recording (`null`). */
export function refusedCall(id: string, kind: SessionKind | null | undefined): StoreError {
  const subject = { kind: 'session', id } as const
  if (kind === undefined) {
    return new StoreError({
      code: 'not-found',
      operation: 'recordCall',
      subject,
      detail: "no such session; create it with createSession(id, version, { kind: 'recording' }) first",
    })
  }
  return new StoreError({
    code: 'invalid',
    operation: 'recordCall',
    subject,
    detail:
      "the session is a prompt, not a recording; record calls into a session created with { kind: 'recording' }",
  })
}

/**
 * Checks that a call may be appended: its session exists (`kind` is not
 * `undefined`), is a recording, and its start is a time. Throws the
 * `StoreError` saying which is not so.
 */
export function checkCall(call: Omit<CallRecord, 'call'>, kind: SessionKind | null | undefined): void {
  if (kind !== 'recording') throw refusedCall(call.session, kind)
  startedMs(call)
}

/** Whether call number `n` lies in `range` (both ends included, each optional). */
export function inRange(n: number, range: CallRange): boolean {
  return (range.from === undefined || n >= range.from) && (range.to === undefined || n <= range.to)
}
