/**
 * A route of the record bench in its own process, forked with an IPC
 * channel: `relay` is the relay as `sysprompt record` runs it (a recorder
 * over a memory store, a trivial mask), `hop` a bare TCP pass-through to
 * the upstream (what any process in between costs). Arguments: the mode,
 * the upstream URL, the secret the mask replaces. Sends `{ url }` once
 * listening; answers `idle` once every exchange so far is recorded, and
 * `close` with what it recorded (and the recorder's time per exchange)
 * before it exits.
 */
import { createConnection, createServer, type Socket } from 'node:net'
import { memoryStore } from '../src/compile/index.js'
import { createRecorder } from '../src/record/recorder.js'
import { startRelay } from '../src/record/relay/index.js'

const [mode = 'relay', upstream = '', secret = 'sk-bench'] = process.argv.slice(2)
const send = (message: unknown) => process.send?.(message)

async function hop(): Promise<void> {
  const target = new URL(upstream)
  const sockets = new Set<Socket>()
  const server = createServer({ noDelay: true }, (client) => {
    const up = createConnection({ host: target.hostname, port: Number(target.port), noDelay: true })
    for (const socket of [client, up]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => sockets.delete(socket))
    }
    client.pipe(up).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  process.on('message', (message) => {
    if (message === 'idle') send('idle')
    if (message === 'close') {
      for (const socket of sockets) socket.destroy()
      server.close(() => {
        send({})
        process.disconnect()
      })
    }
  })
  send({ url: `http://127.0.0.1:${port}` })
}

async function relay(): Promise<void> {
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
  const running = await startRelay({
    upstreams: { anthropic: upstream },
    onExchange: async (event) => {
      const t0 = performance.now()
      await recorder.handle(event)
      recordMs.push(performance.now() - t0)
    },
    onWarning: () => warnings++,
  })
  process.on('message', (message) => {
    if (message === 'idle') void running.idle().then(() => send('idle'))
    if (message === 'close')
      void running.close().then(async () => {
        const { requests, recorded } = recorder.summary()
        await store.close?.()
        recordMs.sort((a, b) => a - b)
        const recordMedian = recordMs[recordMs.length >> 1] ?? 0
        send({ requests, recorded, dropped: running.dropped, warnings, recordMedian })
        process.disconnect()
      })
  })
  send({ url: running.url })
}

await (mode === 'hop' ? hop() : relay())
