/**
 * A store client in its own OS process, for the multi-process conformance
 * cases and the crash test. Argument: JSON of `{ open, task, id, index, … }`
 * (see `store-processes.ts`). Prints `ready`, waits for `go` on stdin, does
 * its task, prints `result <json>` and exits.
 */

import { createSessionPrompts } from '../../src/compile/sessions.js'
import { StoreConflictError } from '../../src/compile/store-errors.js'
import type { PromptStore } from '../../src/compile/types.js'
import { hashText } from '../../src/shared/hash.js'
import { versionFixture } from './prompt-store.js'
import { callFixture } from './recordings.js'
import type { ChildOpen, ChildTask } from './store-processes.js'

const config = JSON.parse(process.argv[2]!) as ChildTask & { open: ChildOpen }
const factory = (await import(config.open.module))[config.open.export] as (options: unknown) => PromptStore
const store = factory(config.open.options)

const go = new Promise<void>((resolve) => {
  process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
    if (chunk.includes('go')) resolve()
  })
})
process.stdout.write('ready\n')
await go

async function appendOnce(id: string, text: string): Promise<string> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const current = (await store.getSession(id))!
    const next = versionFixture(current.current.version + 1, [text], 'step')
    try {
      await store.appendVersion(id, next, current.current.hash)
      return next.hash
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error
    }
  }
  throw new Error('gave up after 10 000 conflicts')
}

let result: Record<string, unknown>
if (config.task === 'construct') {
  const sessions = createSessionPrompts({
    build: async () => versionFixture(1, [`built by process ${config.index}`]).compiled,
    store,
  })
  const compiled = await sessions.construct(config.id, null)
  result = { hash: compiled.hash, textHash: hashText(compiled.text) }
} else if (config.task === 'append') {
  const appended: string[] = []
  for (let k = 0; k < config.count; k++)
    appended.push(await appendOnce(config.id, `p${config.index} step ${k}`))
  result = { appended }
} else if (config.task === 'record') {
  const numbers: number[] = []
  for (let k = 0; k < config.count; k++)
    numbers.push((await store.recordCall(callFixture(config.id, config.index * 100 + k))).call)
  result = { numbers }
} else {
  // The crash test: append large versions until killed, saying after each one committed.
  const big = 'x'.repeat(64 * 1024)
  for (let k = 0; ; k++) {
    await appendOnce(config.id, `${big} step ${k}`)
    process.stdout.write(`committed ${k}\n`)
  }
}
process.stdout.write(`result ${JSON.stringify(result)}\n`)
await store.close?.()
process.exit(0)
