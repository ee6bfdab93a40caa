import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { describePromptStoreConformance, versionFixture } from '../../test/conformance/prompt-store.js'
import { callFixture, recordedVersion } from '../../test/conformance/recordings.js'
import type { PromptStore } from '../compile/types.js'
import { encodeVersion } from './ledger.js'
import { postgresStore } from './postgres.js'
import { postgresCallSql } from './postgres-calls.js'
import { POSTGRES_MIGRATIONS } from './postgres-schema.js'

/** Set by `.ci/run` (which starts a server); without it the suite is skipped locally and fails under CI. */
const url = process.env.SYSPROMPT_TEST_PG_URL
const INDEX = new URL('./index.ts', import.meta.url).pathname

if (url === undefined) {
  if (process.env.CI === 'true') {
    it('has a PostgreSQL server to test against', () => {
      throw new Error(
        'CI=true but SYSPROMPT_TEST_PG_URL is not set: .ci/run must start PostgreSQL and export it',
      )
    })
  } else {
    describe.skip('postgresStore (skipped because SYSPROMPT_TEST_PG_URL is not set; `bash .ci/run` starts a server and sets it)', () => {
      it('runs the conformance suite', () => {})
    })
  }
} else {
  const schemas: string[] = []
  const schemaOf = new WeakMap<PromptStore, string>()
  let counter = 0
  const freshSchema = () => {
    const schema = `sysprompt_test_${process.pid}_${++counter}`
    schemas.push(schema)
    return schema
  }
  afterAll(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await client.end()
  })

  describePromptStoreConformance(
    'postgresStore',
    ({ clock }) => {
      const schema = freshSchema()
      const store = postgresStore({ connectionString: url, schema, clock })
      schemaOf.set(store, schema)
      return store
    },
    {
      openPeer: (first) => postgresStore({ connectionString: url, schema: schemaOf.get(first)! }),
      processes: {
        open: (first) => ({
          module: INDEX,
          export: 'postgresStore',
          options: { connectionString: url, schema: schemaOf.get(first)! },
        }),
      },
    },
  )

  describe('postgresStore', () => {
    it('stores a prompt shared by many sessions once', async () => {
      const schema = freshSchema()
      const store = postgresStore({ connectionString: url, schema })
      const v1 = versionFixture(1, ['a'.repeat(30_000), 'b'.repeat(2_000)])
      for (let i = 0; i < 20; i++) await store.createSession(`s${i}`, v1)
      // A second store does not know the blobs: it sends them again and they are not duplicated.
      const other = postgresStore({ connectionString: url, schema })
      await other.createSession('s-other', v1)
      await other.close()
      await store.close()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}".blobs`)
      await client.end()
      expect(rows[0].n).toBe(4)
    })

    it('never returns a prompt whose stored text no longer matches its hash', async () => {
      const schema = freshSchema()
      const store = postgresStore({ connectionString: url, schema })
      await store.createSession('s', versionFixture(1, ['the real text']))
      await store.close()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`UPDATE "${schema}".blobs SET body = 'the fake text' WHERE body = 'the real text'`)
      await client.end()
      const reopened = postgresStore({ connectionString: url, schema })
      await expect(reopened.getSession('s')).rejects.toMatchObject({
        code: 'failed',
        message: expect.stringMatching(/does not match its hash/),
      })
      await reopened.close()
    })

    it('appending call 1 000 is one statement, as call 1 was, and no recording statement needs a table scan', async () => {
      const schema = freshSchema()
      const pool = new pg.Pool({ connectionString: url, max: 2 })
      const sent: string[] = []
      const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>
      ;(pool as unknown as { query: typeof query }).query = (...args: unknown[]) => {
        sent.push(String(args[0]))
        return query(...args)
      }
      const store = postgresStore({ pool, schema })
      await store.createSession('rec', recordedVersion(1, 'p1'), { kind: 'recording' })
      const statementsOf = async (n: number) => {
        sent.length = 0
        expect((await store.recordCall(callFixture('rec', n % 50))).call).toBe(n)
        return [...sent]
      }
      const first = await statementsOf(1)
      for (let n = 2; n < 1000; n++) await store.recordCall(callFixture('rec', n % 50))
      const last = await statementsOf(1000)
      expect(first).toHaveLength(1)
      expect(last).toEqual(first)
      await store.close()

      // With sequential scans priced out, a plan that still scans has no index to use.
      const client = await pool.connect()
      await client.query('SET enable_seqscan = off')
      await client.query(`ANALYZE "${schema}".calls`)
      const sql = postgresCallSql(`"${schema}".`)
      const cases: [string, unknown[]][] = [
        [sql.recordCall, ['rec', ...Array.from({ length: 21 }, () => null)]],
        [sql.calls, ['rec', 1, 10]],
        [sql.findPrefix, ['rec', 'sha256:x']],
        [sql.kind, ['rec']],
        [sql.pruneCalls, [0]],
        [sql.deleteCalls, ['rec']],
      ]
      for (const [text, values] of cases) {
        const plan = (await client.query(`EXPLAIN ${text}`, values)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n')
        expect(plan, text).not.toMatch(/Seq Scan/)
      }
      client.release()
      await pool.end()
    })

    it('upgrades a schema 1 database, keeping its sessions, which can then hold recordings', async () => {
      const schema = freshSchema()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`CREATE SCHEMA "${schema}"`)
      await client.query(
        `CREATE TABLE "${schema}".schema_version (version integer PRIMARY KEY, applied_at text NOT NULL)`,
      )
      await client.query(POSTGRES_MIGRATIONS[0]!.replaceAll('{s}', `"${schema}".`))
      await client.query(`INSERT INTO "${schema}".schema_version VALUES (1, 'then')`)
      const old = versionFixture(1, ['kept from schema 1'])
      const { blobs, row } = encodeVersion(old)
      for (const b of blobs)
        await client.query(`INSERT INTO "${schema}".blobs VALUES ($1, $2)`, [b.hash, b.body])
      await client.query(`INSERT INTO "${schema}".sessions VALUES ('old', 1, $1, $2, $2)`, [row.hash, row.at])
      await client.query(`INSERT INTO "${schema}".versions VALUES ('old', 1, $1, $2, $3, $4, $5)`, [
        row.hash,
        row.tokens,
        row.reason,
        row.at,
        row.body,
      ])
      await client.end()
      const store = postgresStore({ connectionString: url, schema })
      expect(await store.getSession('old')).toEqual({ id: 'old', current: old, versions: 1 })
      await store.createSession('rec', recordedVersion(1, 'p1'), { kind: 'recording' })
      expect((await store.recordCall(callFixture('rec', 1))).call).toBe(1)
      expect((await store.listSessions()).find((s) => s.id === 'rec')).toMatchObject({
        kind: 'recording',
        calls: 1,
      })
      await store.close()
    })

    it('reports an unreachable server as a failed StoreError naming the server without its password', async () => {
      const store = postgresStore({ connectionString: 'postgres://u:secret@127.0.0.1:1/none' })
      const error = await store.getSession('s').catch((e) => e)
      expect(error).toMatchObject({ name: 'StoreError', code: 'failed' })
      expect(store.location).not.toContain('secret')
      await store.close()
    })
  })
}
