/**
 * Persistence (issue: session ledger): per driver, `sessions.construct` of
 * 1 000 sessions of one 30 KB prompt (`build` excluded: it returns a prompt
 * compiled once), `store.getSession` over them (with the hash check), and
 * `sessions.get` through its memory cache; plus the store's bytes per
 * session. PostgreSQL runs when SYSPROMPT_TEST_PG_URL is set (`.ci/run`
 * sets it), at 16 concurrent clients. Memory and SQLite run in this process
 * and use the bench's clock (CPU time when the machine is loaded);
 * PostgreSQL uses wall time, since most of its work is the server's.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import {
  type CompiledPrompt,
  compile,
  createSessionPrompts,
  memoryStore,
  type PromptStore,
} from '../src/index.js'
import { nodeHash } from '../src/node/index.js'
import { postgresStore, sqliteStore } from '../src/store/index.js'
import { heading, kb, table, us, verdict } from './format.js'
import { clockNow, currentClock } from './measure.js'

const CLIENTS = 16

function prompt(): CompiledPrompt {
  const paragraph = 'Read the files a change touches before you edit them, and keep each edit small. '
  const sections = Array.from({ length: 20 }, (_, i) => ({
    name: `section:${i}`,
    order: i,
    text: `## Section ${i}\n\n${paragraph.repeat(18)}`,
    dialect: 'mustache' as const,
    stability: (i < 15 ? 'static' : 'session') as 'static' | 'session',
  }))
  const tools = Array.from({ length: 10 }, (_, t) => ({
    name: `tool_${t}`,
    description: `Tool ${t} does one thing.`,
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  }))
  return compile({ sections, tools, variables: {}, stability: {} } as never, {
    tokenizer: 'estimate',
    hash: nodeHash,
  })
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/** Runs `op(i)` for i in 0..n-1 on `clients` concurrent workers; ops/s and latency percentiles in µs. */
async function measure(n: number, clients: number, op: (i: number) => Promise<unknown>, now: () => number) {
  const latencies: number[] = []
  let next = 0
  const started = now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < n; i = next++) {
        const t = now()
        await op(i)
        latencies.push((now() - t) * 1000)
      }
    }),
  )
  const seconds = (now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return { opsPerSecond: n / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) }
}

interface Driver {
  name: string
  open: () => Promise<PromptStore>
  clients: number
  /** The clock: the bench's (CPU time when the machine is loaded) for in-process drivers, wall time for a server. */
  now: () => number
  /** The store's size in bytes now. */
  size: () => Promise<number>
  cleanup: () => Promise<void>
}

type Row = string[]

async function benchDriver(
  driver: Driver,
  compiled: CompiledPrompt,
  sessions: number,
  rows: Row[],
  notes: string[],
) {
  const store = await driver.open()
  const before = await driver.size()
  const prompts = createSessionPrompts({ build: async () => compiled, store, cacheSize: sessions })
  const construct = await measure(
    sessions,
    driver.clients,
    (i) => prompts.construct(`session-${i}`, null),
    driver.now,
  )
  const reads = sessions * 3
  const getSession = await measure(
    reads,
    driver.clients,
    (i) => store.getSession(`session-${i % sessions}`),
    driver.now,
  )
  for (let i = 0; i < sessions; i++) await prompts.get(`session-${i}`)
  const cachedReads = sessions * 200
  // The memory cache is in-process whatever the driver: the bench's clock.
  const started = clockNow()
  for (let i = 0; i < cachedReads; i++) await prompts.get(`session-${i % sessions}`)
  const cachedOps = cachedReads / ((clockNow() - started) / 1000)
  await store.close?.()
  const after = await driver.size()
  const perSession = (after - before - compiled.bytes) / sessions
  const target = (name: string) =>
    name === 'construct' && driver.name === 'postgres'
      ? { goal: '≥ 2 000/s', pass: construct.opsPerSecond >= 2000 }
      : name === 'getSession' && driver.name === 'sqlite'
        ? { goal: '≥ 20 000/s', pass: getSession.opsPerSecond >= 20_000 }
        : name === 'sessions.get' && driver.name !== 'memory'
          ? { goal: '≥ 500 000/s', pass: cachedOps >= 500_000 }
          : undefined
  const row = (name: string, r: { opsPerSecond: number; p50?: number; p99?: number }) => {
    const t = target(name)
    rows.push([
      driver.name,
      name,
      driver.clients === 1 || name === 'sessions.get' ? currentClock() : 'wall',
      r.opsPerSecond.toFixed(0),
      r.p50 === undefined ? '' : us(r.p50),
      r.p99 === undefined ? '' : us(r.p99),
      t === undefined ? '' : `${t.goal} ${verdict(t.pass)}`,
    ])
  }
  row('construct', construct)
  row('getSession', getSession)
  row('sessions.get', { opsPerSecond: cachedOps })
  if (driver.name !== 'memory') {
    const budget = 2 * compiled.bytes + 1024 * sessions
    notes.push(
      `${driver.name}: ${sessions} sessions of one ${kb(compiled.bytes)} prompt take ${kb(after - before)} (${(perSession).toFixed(0)} bytes per session beyond one prompt); budget 2 × prompt + 1 KB per session = ${kb(budget)}: ${verdict(after - before <= budget)}`,
    )
  }
  await driver.cleanup()
}

/** `npm run bench -- --only=store`. */
export async function runStoreBench(options: { quick: boolean }): Promise<void> {
  console.log(heading('store: 1 000 sessions of one 30 KB prompt, per driver'))
  const sessions = options.quick ? 200 : 1000
  const compiled = prompt()
  const rows: Row[] = []
  const notes: string[] = []
  const dir = mkdtempSync(join(tmpdir(), 'sysprompt-bench-'))
  const drivers: Driver[] = [
    {
      name: 'memory',
      open: async () => memoryStore(),
      clients: 1,
      now: clockNow,
      size: async () => 0,
      cleanup: async () => {},
    },
    {
      name: 'sqlite',
      open: async () => sqliteStore({ path: join(dir, 'bench.db') }),
      clients: 1,
      now: clockNow,
      // After close the WAL is checkpointed into the file.
      size: async () => {
        try {
          return statSync(join(dir, 'bench.db')).size
        } catch {
          return 0
        }
      },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    },
  ]
  const url = process.env.SYSPROMPT_TEST_PG_URL
  if (url !== undefined) {
    const schema = `sysprompt_bench_${process.pid}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    drivers.push({
      name: 'postgres',
      open: async () => postgresStore({ connectionString: url, schema, max: CLIENTS }),
      clients: CLIENTS,
      now: () => performance.now(),
      size: async () => {
        const { rows } = await admin.query(
          `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
          [schema],
        )
        return Number(rows[0].bytes)
      },
      cleanup: async () => {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
        await admin.end()
      },
    })
  } else notes.push('postgres: skipped, SYSPROMPT_TEST_PG_URL is not set (bash .ci/run sets it)')
  for (const driver of drivers) await benchDriver(driver, compiled, sessions, rows, notes)
  console.log(
    table(['driver', 'operation', 'clock', 'ops/s', 'p50 µs', 'p99 µs', 'target'], rows, [
      'l',
      'l',
      'l',
      'r',
      'r',
      'r',
      'l',
    ]),
  )
  for (const note of notes) console.log(note)
  console.log(
    `construct excludes build; getSession reads the ledger and checks the hash of every text it returns; PostgreSQL at ${CLIENTS} concurrent clients on loopback, sizes from pg_total_relation_size (tables, indexes, TOAST).`,
  )
}
