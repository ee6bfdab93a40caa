import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { describePromptStoreConformance, versionFixture } from '../../test/conformance/prompt-store.js'
import type { PromptStore } from '../compile/types.js'
import { loadOptional } from './optional.js'
import { defaultStatePath } from './paths.js'
import { sqliteStore } from './sqlite.js'
import { SQLITE_MIGRATIONS } from './sqlite-schema.js'

const root = mkdtempSync(join(tmpdir(), 'sysprompt-sqlite-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let counter = 0
const freshPath = () => join(root, `db-${process.pid}-${++counter}.db`)
const paths = new WeakMap<PromptStore, string>()
const INDEX = new URL('./index.ts', import.meta.url).pathname

describePromptStoreConformance(
  'sqliteStore',
  ({ clock }) => {
    const path = freshPath()
    const store = sqliteStore({ path, clock })
    paths.set(store, path)
    return store
  },
  {
    openPeer: (first) => sqliteStore({ path: paths.get(first)! }),
    processes: {
      open: (first) => ({ module: INDEX, export: 'sqliteStore', options: { path: paths.get(first)! } }),
    },
  },
)

describe('sqliteStore', () => {
  it('keeps sessions across a close and a reopen of the file', async () => {
    const path = freshPath()
    const v1 = versionFixture(1, ['kept'])
    const first = sqliteStore({ path })
    await first.createSession('s', v1)
    await first.close()
    const again = sqliteStore({ path })
    expect(await again.getSession('s')).toEqual({ id: 's', current: v1, versions: 1 })
    await again.close()
  })

  it('uses WAL and records its schema version', async () => {
    const path = freshPath()
    await sqliteStore({ path }).close()
    const db = new Database(path)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.prepare('SELECT max(version) AS v FROM schema_version').get()).toEqual({
      v: SQLITE_MIGRATIONS.length,
    })
    db.close()
  })

  it('refuses a database written by a newer schema instead of altering it', async () => {
    const path = freshPath()
    await sqliteStore({ path }).close()
    const db = new Database(path)
    db.prepare("INSERT INTO schema_version VALUES (99, 'later')").run()
    db.close()
    expect(() => sqliteStore({ path })).toThrow(/schema version 99, newer than this sysprompt knows/)
  })

  it('stores a prompt shared by many sessions once', async () => {
    const path = freshPath()
    const store = sqliteStore({ path })
    const v1 = versionFixture(1, ['a'.repeat(30_000), 'b'.repeat(2_000)])
    for (let i = 0; i < 50; i++) await store.createSession(`s${i}`, v1)
    await store.close()
    const db = new Database(path)
    const { n, chars } = db.prepare('SELECT count(*) AS n, sum(length(body)) AS chars FROM blobs').get() as {
      n: number
      chars: number
    }
    db.close()
    // Two section texts, one tool list, one version body.
    expect(n).toBe(4)
    expect(chars).toBeLessThan(33_000 + 4_000)
  })

  it('never returns a prompt whose stored text no longer matches its hash', async () => {
    const path = freshPath()
    const store = sqliteStore({ path })
    await store.createSession('s', versionFixture(1, ['the real text', 'second']))
    await store.close()
    const db = new Database(path)
    db.prepare("UPDATE blobs SET body = 'the fake text' WHERE body = 'the real text'").run()
    db.close()
    const reopened = sqliteStore({ path })
    await expect(reopened.getSession('s')).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/does not match its hash/),
    })
    await expect(reopened.history('s')).rejects.toMatchObject({ code: 'failed' })
    await reopened.close()
  })

  it('refuses a path that is a symbolic link, naming it', () => {
    const target = freshPath()
    writeFileSync(target, '')
    const link = join(root, `link-${++counter}.db`)
    symlinkSync(target, link)
    expect(() => sqliteStore({ path: link })).toThrow(/is a symbolic link/)
  })

  it('refuses a planted link beside the database (its WAL file)', () => {
    const path = freshPath()
    symlinkSync(join(root, 'elsewhere'), `${path}-wal`)
    expect(() => sqliteStore({ path })).toThrow(/-wal: is a symbolic link/)
  })

  it('refuses a path that is not a regular file', () => {
    const dir = join(root, `dir-${++counter}`)
    mkdirSync(dir)
    expect(() => sqliteStore({ path: dir })).toThrow(/is not a regular file/)
  })

  it('says the directory is missing for an explicit path instead of creating it', () => {
    expect(() => sqliteStore({ path: join(root, 'missing-dir', 'x.db') })).toThrow(/directory does not exist/)
  })

  it('lists sessions newest first with their current version', async () => {
    const store = sqliteStore({ path: freshPath() })
    const a = versionFixture(1, ['A'])
    await store.createSession('a', a)
    await store.createSession('b', { ...versionFixture(1, ['B']), at: '2025-02-01T00:00:00.000Z' })
    const list = await store.listSessions()
    expect(list.map((s) => s.id)).toEqual(['b', 'a'])
    expect(list[1]).toEqual({
      id: 'a',
      versions: 1,
      hash: a.hash,
      tokens: a.tokens,
      reason: 'construct',
      createdAt: a.at,
      updatedAt: a.at,
    })
    expect(await store.listSessions({ limit: 1 })).toHaveLength(1)
    await store.close()
  })
})

describe('defaultStatePath', () => {
  it('lives in the XDG state directory when set', () => {
    expect(defaultStatePath({ env: { XDG_STATE_HOME: '/state' }, platform: 'linux', home: '/h' })).toBe(
      join('/state', 'sysprompt', 'state.db'),
    )
  })

  it('falls back to the platform state directory, ignoring a relative XDG_STATE_HOME', () => {
    expect(defaultStatePath({ env: { XDG_STATE_HOME: 'rel' }, platform: 'linux', home: '/h' })).toBe(
      join('/h', '.local', 'state', 'sysprompt', 'state.db'),
    )
    expect(defaultStatePath({ env: {}, platform: 'darwin', home: '/h' })).toBe(
      join('/h', 'Library', 'Application Support', 'sysprompt', 'state.db'),
    )
  })
})

describe('optional drivers', () => {
  it('says which package to install when a driver is missing', () => {
    expect(() => loadOptional('sysprompt-no-such-driver', 'fooStore', 'sysprompt-no-such-driver@1')).toThrow(
      'fooStore needs the optional package sysprompt-no-such-driver, which is not installed: run `npm install sysprompt-no-such-driver@1` in your project',
    )
  })
})
