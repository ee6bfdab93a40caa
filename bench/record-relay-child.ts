/**
 * The record bench's relay in its own process, as `sysprompt record` runs
 * it: a recorder over a memory store, a trivial mask. Forked with an IPC
 * channel (`node --import tsx bench/record-relay-child.ts <upstream>
 * <secret>`); sends `{ url }` once listening, answers `idle` once every
 * exchange so far is recorded, and `close` with what it recorded (and the
 * recorder's time per exchange) before it exits.
 */
import { memoryStore } from '../src/compile/index.js'
import { createRecorder } from '../src/record/recorder.js'
import { startRelay } from '../src/record/relay/index.js'

const [upstream = '', secret = 'sk-bench'] = process.argv.slice(2)
const send = (message: unknown) => process.send?.(message)
const store = memoryStore()
const recorder = createRecorder({
  store,
  harness: 'claude',
  key: 'a bench key',
  mask: (text) => text.split(secret).join('[secret]'),
  count: (text) => Math.ceil(text.length / 4),
  tokenizer: 'estimate',
})
const recordMs: number[] = []
let warnings = 0
const relay = await startRelay({
  upstreams: { anthropic: upstream },
  onExchange: async (event) => {
    const t0 = performance.now()
    await recorder.handle(event)
    recordMs.push(performance.now() - t0)
  },
  onWarning: () => warnings++,
})
process.on('message', (message) => {
  if (message === 'idle') void relay.idle().then(() => send('idle'))
  if (message === 'close')
    void relay.close().then(async () => {
      const { requests, recorded } = recorder.summary()
      await store.close?.()
      recordMs.sort((a, b) => a - b)
      const recordMedian = recordMs[recordMs.length >> 1] ?? 0
      send({ requests, recorded, dropped: relay.dropped, warnings, recordMedian })
      process.disconnect()
    })
})
send({ url: relay.url })
