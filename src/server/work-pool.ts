import { type MessagePort, Worker } from 'node:worker_threads'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { ApiError } from './errors.js'
import { type Job, type JobOf, type JobResults, runJob } from './work.js'

/** Worker threads `serve` runs repository work on, unless told otherwise. */
export const DEFAULT_WORKERS = 2

/** The module a worker thread runs, and the Node options it starts with. */
export interface WorkerEntry {
  url: URL
  execArgv?: string[]
}

/** A job sent to a worker. */
export interface JobMessage {
  id: number
  job: Job
}

/** An error as it crosses from a worker: an `ApiError`'s fields, or an error's name, message and stack. */
export interface WireError {
  name: string
  message: string
  stack?: string
  api?: { status: number; code: string; details?: unknown }
}

/** A worker's answer to a job, or its word that it has loaded and takes jobs. */
export type ResultMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError }
  | { ready: true }

/**
 * The Node options a worker starts with: the process's own, less those a
 * worker running a module file refuses (`--input-type`, which a process
 * started with `node --input-type=module -e …` carries).
 */
export function workerExecArgv(argv: readonly string[] = process.execArgv): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--input-type') i++
    else if (!arg.startsWith('--input-type=')) out.push(arg)
  }
  return out
}

/**
 * The worker module: tsc's `dist/server/work-worker.js` beside this file,
 * or beside the command's bundle (`dist/bin/cli.cjs`, whose
 * `import.meta.url` the build defines as its own URL, one level under
 * `dist/` as tsc's output is). Run from the TypeScript sources (tests,
 * `tsx`), the `.ts` module through tsx's loader.
 */
export function defaultWorkerEntry(): WorkerEntry {
  const here = import.meta.url
  const execArgv = workerExecArgv()
  if (here.endsWith('.ts')) {
    const viaTsx = execArgv.some((a) => a.includes('tsx'))
    return {
      url: new URL('./work-worker.ts', here),
      execArgv: viaTsx ? execArgv : [...execArgv, '--import', 'tsx'],
    }
  }
  return { url: new URL('../server/work-worker.js', here), execArgv }
}

interface Pending {
  job: Job
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

interface Slot {
  worker: Worker
  /** Whether it has loaded (said `ready`): a worker that dies before has run nothing. */
  ready: boolean
  current: { id: number; pending: Pending } | undefined
}

/** The error a worker sent, rebuilt: an `ApiError` answers as itself, anything else as a 500 with its stack logged. */
function errorOf(wire: WireError): Error {
  if (wire.api !== undefined) {
    return new ApiError(
      wire.api.status as ContentfulStatusCode,
      wire.api.code,
      wire.message,
      wire.api.details,
    )
  }
  const error = new Error(wire.message)
  error.name = wire.name
  if (wire.stack !== undefined) error.stack = wire.stack
  return error
}

function wireError(error: unknown): WireError {
  if (error instanceof ApiError) {
    return {
      name: error.name,
      message: error.message,
      api: {
        status: error.status,
        code: error.code,
        ...(error.details === undefined ? {} : { details: error.details }),
      },
    }
  }
  if (error instanceof Error) {
    return {
      name: error.name,
      message: error.message,
      ...(error.stack === undefined ? {} : { stack: error.stack }),
    }
  }
  return { name: 'Error', message: String(error) }
}

/**
 * The loop of a worker thread: runs each job it receives with `run`, one
 * at a time, and answers its value or its error (as data). A value that
 * cannot be cloned across fails its job, not the worker.
 */
export function serveJobs(port: MessagePort, run: (job: Job) => Promise<unknown>): void {
  port.postMessage({ ready: true } satisfies ResultMessage)
  let queue = Promise.resolve()
  port.on('message', (message: JobMessage) => {
    queue = queue.then(async () => {
      let answer: ResultMessage
      try {
        answer = { id: message.id, ok: true, value: await run(message.job) }
      } catch (error) {
        answer = { id: message.id, ok: false, error: wireError(error) }
      }
      try {
        port.postMessage(answer)
      } catch (error) {
        port.postMessage({ id: message.id, ok: false, error: wireError(error) } satisfies ResultMessage)
      }
    })
  })
}

const shuttingDown = () =>
  new ApiError(503, 'shutting-down', 'the server is shutting down; send the request to its next start')

/**
 * A bounded pool of worker threads for repository work (`work.ts`), so
 * that a heavy request (a large template, a big instruction tree, an
 * adversarial file) never holds the event loop: `/healthz`, reads of the
 * stored sessions and every other cheap request are answered while up to
 * `size` jobs run and the rest wait their turn, first come first served.
 *
 * Workers start on the first job (each loads the pipeline once and then
 * keeps its caches) and stay for the next; an idle worker does not keep
 * the process alive. A worker that dies (a crash, memory) fails the job
 * it was running with a 500 and is replaced on the next job. `size` 0
 * runs each job on the calling thread, and so does a pool whose worker
 * could not even load (its module missing from a repackaged install, Node
 * options a worker refuses): the jobs are served, the reason is kept in
 * `startFailure`.
 */
export class WorkPool {
  readonly size: number
  readonly #entry: WorkerEntry
  #slots: Slot[] = []
  #queue: Pending[] = []
  #closed = false
  #nextId = 1
  #startFailure: Error | undefined

  constructor(options: { size?: number; entry?: WorkerEntry } = {}) {
    const size = options.size ?? DEFAULT_WORKERS
    if (!Number.isInteger(size) || size < 0)
      throw new RangeError(`workers: ${size} is not a count of threads`)
    this.size = size
    this.#entry = options.entry ?? defaultWorkerEntry()
  }

  /** Worker threads running now (for tests and logs). */
  get threads(): number {
    return this.#slots.length
  }

  /** Why no worker could load, when one could not: jobs then run on the calling thread. */
  get startFailure(): Error | undefined {
    return this.#startFailure
  }

  /** Runs `job` on a worker (or, with `size` 0, here) and answers its result. */
  run<K extends Job['kind']>(job: JobOf<K>): Promise<JobResults[K]> {
    if (this.#closed) return Promise.reject(shuttingDown())
    if (this.size === 0 || this.#startFailure !== undefined) return runJob<K>(job)
    return new Promise<JobResults[K]>((resolve, reject) => {
      this.#queue.push({ job, resolve: resolve as (value: unknown) => void, reject })
      this.#dispatch()
    })
  }

  /** Refuses new jobs, fails the waiting ones (503) and stops the workers. */
  async close(): Promise<void> {
    this.#closed = true
    for (const pending of this.#queue.splice(0)) pending.reject(shuttingDown())
    const slots = this.#slots.splice(0)
    await Promise.all(slots.map((slot) => slot.worker.terminate()))
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.current === undefined)
      if (slot === undefined) {
        if (this.#slots.length >= this.size) return
        slot = this.#spawn()
      }
      const pending = this.#queue.shift() as Pending
      const id = this.#nextId++
      slot.current = { id, pending }
      slot.worker.ref()
      try {
        slot.worker.postMessage({ id, job: pending.job } satisfies JobMessage)
      } catch (error) {
        slot.current = undefined
        pending.reject(error)
      }
    }
    for (const slot of this.#slots) if (slot.current === undefined) slot.worker.unref()
  }

  #spawn(): Slot {
    const worker = new Worker(this.#entry.url, {
      name: 'sysprompt-work',
      ...(this.#entry.execArgv === undefined ? {} : { execArgv: this.#entry.execArgv }),
    })
    const slot: Slot = { worker, ready: false, current: undefined }
    this.#slots.push(slot)
    worker.on('message', (message: ResultMessage) => {
      if ('ready' in message) {
        slot.ready = true
        return
      }
      const current = slot.current
      if (current?.id !== message.id) return
      slot.current = undefined
      if (message.ok) current.pending.resolve(message.value)
      else current.pending.reject(errorOf(message.error))
      this.#dispatch()
    })
    worker.on('error', (error) => this.#lose(slot, error))
    worker.on('exit', (code) => this.#lose(slot, new Error(`it exited with code ${code}`)))
    return slot
  }

  /** A worker died: fail its job and forget it (the next job starts another). */
  #lose(slot: Slot, error: Error): void {
    const index = this.#slots.indexOf(slot)
    if (index >= 0) this.#slots.splice(index, 1)
    const current = slot.current
    slot.current = undefined
    if (!slot.ready && !this.#closed) {
      // It never loaded, so it ran nothing: serve its job and the waiting ones here, and every later one.
      this.#startFailure ??= error
      const pending = [...(current === undefined ? [] : [current.pending]), ...this.#queue.splice(0)]
      for (const p of pending) runJob(p.job).then(p.resolve, p.reject)
      return
    }
    if (current !== undefined) {
      current.pending.reject(
        new Error(`the worker thread running this request stopped: ${error.message}`, { cause: error }),
      )
    }
    if (!this.#closed) this.#dispatch()
  }
}
