/**
 * A worker for the pool's tests (`work-pool.test.ts`): instead of building
 * prompts, a `diagnostics` job's text is a command. `block NAME` marks
 * `started-NAME` in the job's root and then holds its thread (a
 * synchronous wait, as a heavy compile would) until a `release` file
 * appears there; `api`, `fail`, `exit` and `clone` fail in each way a job
 * or a worker can.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parentPort } from 'node:worker_threads'
import { ApiError } from './errors.js'
import { serveJobs } from './work-pool.js'

const pause = new Int32Array(new SharedArrayBuffer(4))
if (parentPort === null) throw new Error('a worker only')
serveJobs(parentPort, async (job) => {
  if (job.kind !== 'diagnostics') throw new Error(`no ${job.kind} jobs here`)
  const [command, name] = job.text.split(' ')
  switch (command) {
    case 'block':
      writeFileSync(join(job.root, `started-${name}`), '')
      while (!existsSync(join(job.root, 'release'))) Atomics.wait(pause, 0, 0, 5)
      return { done: name }
    case 'api':
      throw new ApiError(418, 'teapot', 'short and stout', { spout: true })
    case 'fail':
      throw new TypeError('broken on purpose')
    case 'exit':
      process.exit(3)
      break
    case 'clone':
      return { run: () => undefined }
  }
  return { echo: job.text }
})
