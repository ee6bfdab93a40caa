/**
 * The entry of each worker thread of `work-pool.ts`: counts with the Node
 * tokenizers, as the main thread does, and runs the jobs it is sent, one at
 * a time (`serveJobs`).
 */
import { parentPort } from 'node:worker_threads'
import { registerNodeTokenizers } from '../node/tokenizer-loaders.js'
import { runJob } from './work.js'
import { serveJobs } from './work-pool.js'

registerNodeTokenizers()
if (parentPort === null) throw new Error('work-worker runs only as a worker thread (see work-pool.ts)')
serveJobs(parentPort, runJob)
