import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { versionFixture } from '../../test/conformance/prompt-store.js'
import { callFixture, recordedVersion } from '../../test/conformance/recordings.js'
import { encodeVersion } from './ledger.js'
import { sqliteStore } from './sqlite.js'
import { SQLITE_CALL_SQL } from './sqlite-calls.js'
import { SQLITE_MIGRATIONS } from './sqlite-schema.js'

const root = mkdtempSync(join(tmpdir(), 'sysprompt-sqlite-rec-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let counter = 0
const freshPath = () => join(root, `db-${++counter}.db`)
const mode = (path: string) => statSync(path).mode & 0o777

describe('sqliteStore recordings', () => {
  it('appending call 1 000 reads by key and index, as call 1 did: no statement of a call scans a table', async () => {
    const path = freshPath()
    const store = sqliteStore({ path })
    await store.createSession('rec', recordedVersion(1, 'p1'), { kind: 'recording' })
    for (let n = 1; n <= 1000; n++) await store.recordCall(callFixture('rec', n % 50))
    await store.close()
    const db = new Database(path)
    // With statistics the planner knows the tables are large; a plan must still search, never scan.
    db.exec('ANALYZE')
    const plans: Record<string, string[]> = {}
    for (const [name, sql] of Object.entries(SQLITE_CALL_SQL)) {
      // Pruning compares times (a cut older than every call); the others compare ids.
      const params = (sql.match(/\?/g) ?? []).map(() => (sql.includes('started_ms') ? 0 : 'rec'))
      plans[name] = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
        (row) => row.detail,
      )
    }
    db.close()
    for (const [name, details] of Object.entries(plans)) {
      if (name === 'pruneCalls' || name === 'prunedSessions') {
        expect(details.join('; '), name).toMatch(/USING (COVERING )?INDEX calls_started/)
        continue
      }
      for (const detail of details) expect(detail, `${name}: ${details.join('; ')}`).not.toMatch(/^SCAN/)
    }
    expect(plans.nextCall!.join('; ')).toMatch(/SEARCH sessions USING PRIMARY KEY/)
    expect(plans.findPrefix!.join('; ')).toMatch(/versions_prefix/)
    expect(plans.calls!.join('; ')).toMatch(/SEARCH calls USING INDEX/)
  })

  it('upgrades a database of schema 1, keeping its sessions, which can then hold recordings', async () => {
    const path = freshPath()
    const db = new Database(path)
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)')
    db.exec(SQLITE_MIGRATIONS[0]!)
    db.prepare("INSERT INTO schema_version VALUES (1, 'then')").run()
    const old = versionFixture(1, ['kept from schema 1'])
    const { blobs, row } = encodeVersion(old)
    for (const b of blobs) db.prepare('INSERT INTO blobs VALUES (?, ?)').run(b.hash, b.body)
    db.prepare("INSERT INTO sessions VALUES ('old', 1, ?, ?, ?)").run(row.hash, row.at, row.at)
    db.prepare("INSERT INTO versions VALUES ('old', 1, ?, ?, ?, ?, ?)").run(
      row.hash,
      row.tokens,
      row.reason,
      row.at,
      row.body,
    )
    db.close()
    const store = sqliteStore({ path })
    expect(await store.getSession('old')).toEqual({ id: 'old', current: old, versions: 1 })
    await store.createSession('rec', recordedVersion(1, 'p1'), { kind: 'recording' })
    expect((await store.recordCall(callFixture('rec', 1))).call).toBe(1)
    expect((await store.listSessions()).find((s) => s.id === 'rec')).toMatchObject({
      kind: 'recording',
      calls: 1,
    })
    await store.close()
  })
})

const uid = process.getuid?.()
const canChown = uid === 0
/** A user id that is not ours, for files another user owns (chown needs root). */
const OTHER_UID = 65534

describe.skipIf(uid === undefined)('sqliteStore file permissions', () => {
  it('creates its own directory 0700 and the database, WAL and shared-memory files 0600', async () => {
    const dir = join(root, `state-${++counter}`, 'sysprompt')
    const path = join(dir, 'state.db')
    const store = sqliteStore({ path, createParent: true })
    await store.createSession('rec', recordedVersion(1, 'p1'), { kind: 'recording' })
    await store.recordCall(callFixture('rec', 1))
    expect(mode(dir)).toBe(0o700)
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(mode(file), file).toBe(0o600)
    await store.close()
  })

  it('tightens a directory and a database found wider, and the WAL beside them', async () => {
    const dir = join(root, `wide-${++counter}`)
    mkdirSync(dir, { mode: 0o755 })
    chmodSync(dir, 0o755)
    const path = join(dir, 'state.db')
    await sqliteStore({ path }).close()
    chmodSync(path, 0o644)
    writeFileSync(`${path}-wal`, '')
    chmodSync(`${path}-wal`, 0o666)
    const store = sqliteStore({ path, createParent: true })
    await store.createSession('s', versionFixture(1, ['x']))
    expect(mode(dir)).toBe(0o700)
    expect(mode(path)).toBe(0o600)
    expect(mode(`${path}-wal`)).toBe(0o600)
    await store.close()
  })

  it('leaves alone the mode of a directory the user named a database in', async () => {
    const dir = join(root, `project-${++counter}`)
    mkdirSync(dir)
    chmodSync(dir, 0o755)
    await sqliteStore({ path: join(dir, 'store.db') }).close()
    expect(mode(dir)).toBe(0o755)
    expect(mode(join(dir, 'store.db'))).toBe(0o600)
  })

  it.skipIf(!canChown)(
    'refuses a store directory another user owns, saying what to do (needs root to chown)',
    () => {
      const dir = join(root, `foreign-dir-${++counter}`)
      mkdirSync(dir, { mode: 0o700 })
      chownSync(dir, OTHER_UID, OTHER_UID)
      expect(() => sqliteStore({ path: join(dir, 'state.db'), createParent: true })).toThrow(
        /the store directory belongs to another user \(uid 65534\).*--store sqlite:PATH/,
      )
      expect(mode(dir)).toBe(0o700)
    },
  )

  it.skipIf(!canChown)('refuses a database another user owns, changing nothing (needs root to chown)', () => {
    const path = freshPath()
    writeFileSync(path, '')
    chmodSync(path, 0o644)
    chownSync(path, OTHER_UID, OTHER_UID)
    expect(() => sqliteStore({ path })).toThrow(/state|db-\d+\.db: the file belongs to another user/)
    expect(mode(path)).toBe(0o644)
  })
})
