import { existsSync } from 'node:fs'
import { mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore } from '../compile/index.js'
import { closeServerApp } from './app.js'
import { ApiError } from './errors.js'
import { type Answer, appFor, client, makeProject } from './server.test-helper.js'
import { WorkPool, workerExecArgv } from './work-pool.js'

const slowEntry = {
  url: new URL('./slow-worker.test-helper.ts', import.meta.url),
  execArgv: [...process.execArgv, '--import', 'tsx'],
}

let gate: string
beforeAll(async () => {
  gate = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-work-pool-')))
})
afterAll(() => rm(gate, { recursive: true, force: true }))

/** A job for the slow worker: its text is the command. */
const command = (text: string, root = gate) => ({
  kind: 'diagnostics' as const,
  root,
  text,
  dialect: 'bracket' as const,
})

/** Resolves once `ready()` holds, checking on each turn of the event loop (which therefore stays free). */
async function until(ready: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 120_000
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

const started = async (dir: string) => (await readdir(dir)).filter((n) => n.startsWith('started-')).sort()

describe('WorkPool', () => {
  it('runs at most two jobs at once, each on its own thread, while this thread stays free; the rest wait their turn', {
    timeout: 240_000,
  }, async () => {
    const dir = await mkdtemp(join(gate, 'block-'))
    const pool = new WorkPool({ size: 2, entry: slowEntry })
    try {
      const answers: string[] = []
      const jobs = ['a', 'b', 'c', 'd', 'e'].map((name) =>
        pool.run(command(`block ${name}`, dir)).then((value) => {
          answers.push((value as unknown as { done: string }).done)
        }),
      )
      // Two jobs hold their threads in a synchronous wait; this event loop goes on turning.
      await until(async () => (await started(dir)).length === 2, 'two jobs started')
      expect(await started(dir)).toEqual(['started-a', 'started-b'])
      expect(pool.threads).toBe(2)
      expect(answers).toEqual([])
      let turns = 0
      for (; turns < 10; turns++) await new Promise((r) => setImmediate(r))
      expect(turns).toBe(10)
      await writeFile(join(dir, 'release'), '')
      await Promise.all(jobs)
      expect([...answers].sort()).toEqual(['a', 'b', 'c', 'd', 'e'])
      expect(await started(dir)).toHaveLength(5)
      expect(pool.threads).toBe(2)
    } finally {
      await pool.close()
    }
  })

  it('carries an ApiError across as itself, any other error with its name and stack, and a value that cannot cross as a failure', {
    timeout: 240_000,
  }, async () => {
    const pool = new WorkPool({ size: 1, entry: slowEntry })
    try {
      const api = await pool.run(command('api')).catch((e: unknown) => e)
      expect(api).toBeInstanceOf(ApiError)
      expect(api).toMatchObject({
        status: 418,
        code: 'teapot',
        message: 'short and stout',
        details: { spout: true },
      })
      const fail = await pool.run(command('fail')).catch((e: unknown) => e)
      expect(fail).toMatchObject({ name: 'TypeError', message: 'broken on purpose' })
      expect((fail as Error).stack).toContain('slow-worker.test-helper')
      const clone = await pool.run(command('clone')).catch((e: unknown) => e)
      expect(clone).toMatchObject({ name: 'DataCloneError' })
      expect(await pool.run(command('hello'))).toEqual({ echo: 'hello' })
      expect(pool.threads).toBe(1)
    } finally {
      await pool.close()
    }
  })

  it('fails the job of a worker that dies and starts another for the next job', {
    timeout: 240_000,
  }, async () => {
    const pool = new WorkPool({ size: 1, entry: slowEntry })
    try {
      const died = await pool.run(command('exit')).catch((e: unknown) => e)
      expect(died).toBeInstanceOf(Error)
      expect((died as Error).message).toBe(
        'the worker thread running this request stopped: it exited with code 3',
      )
      expect(await pool.run(command('again'))).toEqual({ echo: 'again' })
    } finally {
      await pool.close()
    }
  })

  it('on close fails the waiting jobs and any later one with 503 and stops its threads', {
    timeout: 240_000,
  }, async () => {
    const dir = await mkdtemp(join(gate, 'close-'))
    const pool = new WorkPool({ size: 1, entry: slowEntry })
    const running = pool.run(command('block x', dir)).catch((e: unknown) => e)
    const waiting = pool.run(command('block y', dir)).catch((e: unknown) => e)
    await until(async () => (await started(dir)).length === 1, 'the first job started')
    await pool.close()
    expect(await waiting).toMatchObject({ status: 503, code: 'shutting-down' })
    expect(await running).toBeInstanceOf(Error)
    expect(await pool.run(command('late')).catch((e: unknown) => e)).toMatchObject({ status: 503 })
    expect(pool.threads).toBe(0)
    expect(existsSync(join(dir, 'started-y'))).toBe(false)
  })

  it('serves the jobs on the calling thread when no worker can load, saying why', {
    timeout: 240_000,
  }, async () => {
    const pool = new WorkPool({ size: 2, entry: { url: new URL('./no-such-worker.js', import.meta.url) } })
    try {
      const answers = await Promise.all(
        ['Hi [if project:root] yes', 'Fine.'].map((text) =>
          pool.run({ kind: 'diagnostics', root: gate, text, dialect: 'bracket' }),
        ),
      )
      expect(answers[0]?.map((d) => d.code)).toContain('unclosed-block')
      expect(answers[1]).toEqual([])
      expect(pool.startFailure?.message).toMatch(/no-such-worker/)
      expect(await pool.run({ kind: 'diagnostics', root: gate, text: 'Later.', dialect: 'bracket' })).toEqual(
        [],
      )
      expect(pool.threads).toBe(0)
    } finally {
      await pool.close()
    }
  })

  it('starts workers with the Node options of the process, less --input-type', () => {
    expect(
      workerExecArgv([
        '--input-type=module',
        '--conditions',
        'x',
        '--input-type',
        'module',
        '--max-old-space-size=99',
      ]),
    ).toEqual(['--conditions', 'x', '--max-old-space-size=99'])
  })

  it('refuses a size that is not a count of threads', () => {
    expect(() => new WorkPool({ size: -1 })).toThrow(RangeError)
    expect(() => new WorkPool({ size: 1.5 })).toThrow(RangeError)
  })
})

describe('the routes on worker threads', () => {
  let root: string
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    ;({ root, cleanup } = await makeProject('workers'))
    await writeFile(join(root, '.sysprompt', 'template.md'), 'Hello [prompt:cwd] [endif]\n')
  })
  afterAll(() => cleanup())

  /** An answer without what differs from run to run. */
  const stable = (a: Answer) => ({
    status: a.status,
    body: JSON.parse(JSON.stringify(a.body).replace(/"(at|updatedAt|createdAt)":"[^"]*"/g, '"$1":""')),
  })

  it('answer as they do on the event loop thread', { timeout: 240_000 }, async () => {
    const here = client(appFor(root, { workers: 0 }))
    const app = appFor(root, { workers: 2, store: memoryStore() })
    const there = client(app)
    try {
      const requests: [string, string, unknown?][] = [
        ['GET', '/api/template'],
        ['GET', '/api/variables'],
        ['POST', '/api/preview', { context: { cwd: 'packages/api' } }],
        ['POST', '/api/preview', { template: 'Hi [if project:root] yes', context: {} }],
        ['POST', '/api/preview', { template: 'Hi [prompt:cwd]', context: {} }],
        ['POST', '/api/preview', { context: { cwd: '../outside' } }],
        ['GET', '/api/inspect'],
        ['PUT', '/api/sessions/s1', { context: {} }],
        ['GET', '/api/sessions/s1'],
        ['PUT', '/api/template', { template: 'a\n{{#if x}}never closed', dialect: 'mustache' }],
        ['PUT', '/api/template', { template: '---\norder: [\n---\nx', dialect: 'bracket' }],
      ]
      const statuses: number[] = []
      for (const [method, path, body] of requests) {
        const [a, b] = await Promise.all([here(method, path, body), there(method, path, body)])
        expect(stable(b), `${method} ${path}`).toEqual(stable(a))
        statuses.push(b.status)
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 400, 200, 200, 200, 422, 422])
    } finally {
      await closeServerApp(app)
    }
  })
})
