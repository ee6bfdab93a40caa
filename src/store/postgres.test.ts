import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { describePromptStoreConformance, versionFixture } from '../../test/conformance/prompt-store.js'
import type { PromptStore } from '../compile/types.js'
import { postgresStore } from './postgres.js'

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

    it('reports an unreachable server as a failed StoreError naming the server without its password', async () => {
      const store = postgresStore({ connectionString: 'postgres://u:secret@127.0.0.1:1/none' })
      const error = await store.getSession('s').catch((e) => e)
      expect(error).toMatchObject({ name: 'StoreError', code: 'failed' })
      expect(store.location).not.toContain('secret')
      await store.close()
    })
  })
}
