import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { versionFixture } from '../../test/conformance/prompt-store.js'
import { exited, startStoreChild, withDeadline } from '../../test/conformance/store-processes.js'
import { sqliteStore } from './sqlite.js'

const root = mkdtempSync(join(tmpdir(), 'sysprompt-crash-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const INDEX = new URL('./index.ts', import.meta.url).pathname

describe('sqliteStore after a crash', () => {
  it('a writer killed with SIGKILL mid-writes leaves a database that opens, passes its integrity check and holds only whole versions', async () => {
    const path = join(root, 'crash.db')
    const setup = sqliteStore({ path })
    await setup.createSession('crash', versionFixture(1, ['base']))
    await setup.close()

    const child = await startStoreChild(
      { module: INDEX, export: 'sqliteStore', options: { path } },
      { task: 'write-forever', id: 'crash', index: 0 },
    )
    child.process.stdin!.write('go\n')
    // Let it commit a good number of versions, then kill it while it writes the next ones.
    let committed = -1
    while (committed < 12) {
      const line = await withDeadline(child.lines.next(), 'the child to commit', child.stderr)
      if (line.done) throw new Error(`the writer ended early:\n${child.stderr()}`)
      committed = Number(line.value.replace('committed ', ''))
    }
    child.process.kill('SIGKILL')
    expect(await exited(child.process)).toBe('SIGKILL')

    const db = new Database(path)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    const counts = db
      .prepare(
        `SELECT s.versions AS head, (SELECT count(*) FROM versions WHERE session_id = s.id) AS rows,
         (SELECT max(version) FROM versions WHERE session_id = s.id) AS top FROM sessions s WHERE id = 'crash'`,
      )
      .get() as { head: number; rows: number; top: number }
    db.close()
    // The session row and the version rows agree: no half-appended version.
    expect(counts.rows).toBe(counts.head)
    expect(counts.top).toBe(counts.head)

    const store = sqliteStore({ path })
    const history = await store.history('crash')
    // Everything the child said it committed is there (version 1 is the base), each one whole:
    // `history` checks every version's text against its hash.
    expect(history.length).toBeGreaterThanOrEqual(committed + 2)
    expect(history.map((v) => v.version)).toEqual(history.map((_, i) => i + 1))
    for (const version of history.slice(1)) expect(version.compiled.text.length).toBeGreaterThan(64 * 1024)
    const record = await store.getSession('crash')
    expect(record?.versions).toBe(history.length)
    // And the database takes writes again.
    const last = history[history.length - 1]!
    await store.appendVersion('crash', versionFixture(last.version + 1, ['after the crash']), last.hash)
    expect((await store.getSession('crash'))?.versions).toBe(history.length + 1)
    await store.close()
  }, 300_000)
})
