/**
 * Stable codes of store errors (SPEC §8):
 * - `conflict`: a compare-and-set lost (the latest hash moved); re-read and retry.
 * - `not-found`: a version was appended to a session that does not exist.
 * - `invalid`: the caller passed a value no store accepts (a first version not numbered 1).
 * - `closed`: the store was used after `close()`.
 * - `failed`: the driver itself failed (I/O, connection); `cause` holds its error.
 */
export type StoreErrorCode = 'conflict' | 'not-found' | 'invalid' | 'closed' | 'failed'

/** What a store error is about: a session id or a template's workspace. */
export type StoreSubject = { kind: 'session'; id: string } | { kind: 'template'; workspace: string }

export interface StoreErrorInit {
  code: StoreErrorCode
  /** The `PromptStore` method that failed, e.g. `appendVersion`. */
  operation: string
  subject?: StoreSubject
  /** The problem and what to do about it, without the location prefix. */
  detail: string
  cause?: unknown
}

function describe(subject: StoreSubject | undefined): string {
  if (subject === undefined) return ''
  return subject.kind === 'session'
    ? ` session "${subject.id}"`
    : ` template of workspace "${subject.workspace}"`
}

/**
 * Any failure of a `PromptStore`. Every driver throws this class (or a
 * subclass) so that callers can branch on `code` whatever the backend; the
 * message names the operation and the session or workspace, and says what to
 * do. Driver errors (a locked SQLite file, a dropped PostgreSQL connection)
 * arrive as code `failed` with the original in `cause`.
 */
export class StoreError extends Error {
  override readonly name: string = 'StoreError'
  readonly code: StoreErrorCode
  readonly operation: string
  readonly subject: StoreSubject | undefined
  /** The problem alone, without the `store.<operation>` prefix that `message` carries. */
  readonly detail: string

  constructor(init: StoreErrorInit) {
    super(`store.${init.operation}${describe(init.subject)}: ${init.detail} [${init.code}]`, {
      cause: init.cause,
    })
    this.code = init.code
    this.operation = init.operation
    this.subject = init.subject
    this.detail = init.detail
  }
}

export interface StoreConflictInit {
  operation: string
  subject: StoreSubject
  /** The hash the caller expected to replace; `null` when it expected nothing stored. */
  expectedHash: string | null
  /** The hash actually stored; `null` when nothing is. */
  actualHash: string | null
  /** Extra explanation, e.g. a version number that is not the next one. */
  reason?: string
}

/**
 * A compare-and-set that lost: `appendVersion` or `setTemplate` was given an
 * expected hash (or version number) that is no longer the latest, because
 * another writer got there first. Nothing was written. Re-read the record,
 * decide again, and retry with the new hash.
 */
export class StoreConflictError extends StoreError {
  override readonly name: string = 'StoreConflictError'
  declare readonly code: 'conflict'
  readonly expectedHash: string | null
  readonly actualHash: string | null

  constructor(init: StoreConflictInit) {
    const expected = init.expectedHash ?? 'nothing stored'
    const actual = init.actualHash ?? 'nothing'
    const why = init.reason ?? `expected ${expected} but ${actual} is stored`
    super({
      code: 'conflict',
      operation: init.operation,
      subject: init.subject,
      detail: `${why}; another writer changed it first, nothing was written: re-read and retry`,
    })
    this.expectedHash = init.expectedHash
    this.actualHash = init.actualHash
  }
}
