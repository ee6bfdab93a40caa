/**
 * Load run of the HTTP API on loopback (autocannon): `previews` preview
 * requests, then `gets` session reads, each at `connections` concurrent,
 * against a real server on the SQLite store in a temporary directory.
 * Returns the counts (what the test asserts) and the latency, throughput
 * and memory figures (what the report prints; never asserted).
 *
 *   npx tsx test/load/server-load.ts [previews] [gets] [connections]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { startServer } from '../../src/server/index.js'
import { makeProject } from '../../src/server/server.test-helper.js'
import { sqliteStore } from '../../src/store/index.js'

/** One autocannon run, reduced to what the load test and the report need. */
export interface LoadPhase {
  name: string
  requests: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
  p50: number
  p99: number
  /** Requests per second, on average. */
  throughput: number
}

/** Heap and resident set in MiB at one moment. */
export interface MemorySample {
  at: string
  heapMiB: number
  rssMiB: number
}

export interface LoadReport {
  phases: LoadPhase[]
  memory: MemorySample[]
}

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10

function sample(at: string): MemorySample {
  globalThis.gc?.()
  const m = process.memoryUsage()
  return { at, heapMiB: mib(m.heapUsed), rssMiB: mib(m.rss) }
}

async function phase(name: string, options: autocannon.Options): Promise<LoadPhase> {
  const result = await autocannon({ ...options, timeout: 120 })
  return {
    name,
    requests: options.amount ?? 0,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    throughput: Math.round(result.requests.average),
  }
}

/** Runs the load against a fresh server and returns the figures. */
export async function runLoad(previews: number, gets: number, connections = 32): Promise<LoadReport> {
  const { root, cleanup } = await makeProject('load')
  const state = await mkdtemp(join(tmpdir(), 'sysprompt-load-state-'))
  const store = sqliteStore({ path: join(state, 'state.db') })
  const server = await startServer({ root, store, port: 0 })
  const memory: MemorySample[] = [sample('start')]
  const phases: LoadPhase[] = []
  try {
    const headers = { 'content-type': 'application/json' }
    const preview = {
      url: `${server.url}/api/preview`,
      method: 'POST' as const,
      headers,
      body: JSON.stringify({ context: { cwd: 'packages/api', model: 'claude-sonnet-4-5' } }),
      connections,
    }
    // Two halves, so the memory after each shows whether it levels off.
    const half = Math.floor(previews / 2)
    phases.push(await phase('preview (first half)', { ...preview, amount: half }))
    memory.push(sample('after first half of previews'))
    phases.push(await phase('preview (second half)', { ...preview, amount: previews - half }))
    memory.push(sample('after previews'))
    const made = await fetch(`${server.url}/api/sessions/load-1`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ context: { cwd: 'packages/api' } }),
    })
    if (made.status !== 200) throw new Error(`PUT /api/sessions/load-1 answered ${made.status}`)
    phases.push(
      await phase('session get', { url: `${server.url}/api/sessions/load-1`, connections, amount: gets }),
    )
    memory.push(sample('after session gets'))
  } finally {
    await server.close()
    await cleanup()
    await rm(state, { recursive: true, force: true })
  }
  return { phases, memory }
}

/** The report as text: one line per phase, then the memory samples. */
export function formatReport(report: LoadReport): string {
  const lines = report.phases.map(
    (p) =>
      `${p.name}: ${p.ok}/${p.requests} 2xx, ${p.non2xx} non-2xx, ${p.errors} errors; p50 ${p.p50} ms, p99 ${p.p99} ms, ${p.throughput} req/s`,
  )
  for (const m of report.memory) lines.push(`memory ${m.at}: heap ${m.heapMiB} MiB, rss ${m.rssMiB} MiB`)
  return lines.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [previews = '10000', gets = '10000', connections = '32'] = process.argv.slice(2)
  const report = await runLoad(Number(previews), Number(gets), Number(connections))
  console.log(formatReport(report))
}
