import { describe, expect, it } from 'vitest'
import { promptOf } from './fixtures.test-helper.js'
import { memoryStore } from './memory-store.js'
import { createSessionPrompts } from './sessions.js'
import { StoreError } from './store-errors.js'
import type { PromptStore } from './types.js'

// What a caller of the session prompts reads when the store fails or a
// usage report names a prompt the session never sent: pinned whole.

/** The error `promise` rejects with. */
const rejection = (promise: Promise<unknown>): Promise<StoreError> =>
  promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (error: unknown) => error as StoreError,
  )

const build = async () => promptOf([{ name: 'identity', text: 'You are a careful coding agent.' }])

describe('session prompts: error messages', () => {
  it("a driver's own failure, an Error or a thrown string, names the session and keeps the cause", async () => {
    for (const cause of [new Error('SQLITE_FULL: database or disk is full'), 'connection reset']) {
      const store: PromptStore = {
        ...memoryStore(),
        createSession: async () => {
          throw cause
        },
      }
      const error = await rejection(createSessionPrompts({ build, store }).construct('chat-9', null))
      const text = cause instanceof Error ? cause.message : cause
      expect(error).toBeInstanceOf(StoreError)
      expect(error.message).toBe(
        `store.createSession session "chat-9": the store failed (${text}); check that it is reachable and writable, then retry [failed]`,
      )
      expect(error.cause).toBe(cause)
    }
  })

  it('a store error passes through as it is', async () => {
    const own = new StoreError({ code: 'closed', operation: 'getSession', detail: 'closed' })
    const store: PromptStore = {
      ...memoryStore(),
      getSession: async () => {
        throw own
      },
    }
    const error = await createSessionPrompts({ build, store })
      .construct('s', null)
      .catch((e: unknown) => e)
    expect(error).toBe(own)
  })

  it('usage for an unknown session, or for a hash the session never sent', async () => {
    const sessions = createSessionPrompts({ build, store: memoryStore() })
    const opts = { provider: 'openai', model: 'gpt-4.1' } as const
    const ghost = await rejection(sessions.recordUsage('ghost', {}, opts))
    expect(ghost.message).toBe(
      'store.recordUsage session "ghost": no such session; construct it before recording its usage [not-found]',
    )
    await sessions.construct('s', null)
    const stray = await rejection(sessions.recordUsage('s', {}, { ...opts, hash: 'sha256:00' }))
    expect(stray.message).toBe(
      'store.recordUsage session "s": no version of this session has hash sha256:00; pass the hash of a prompt the session sent [invalid]',
    )
  })
})

describe('session prompts: the store operation a failure names', () => {
  /** A memory store whose methods in `broken` fail like a lost connection; `texts` is what the build renders. */
  function brokenStore() {
    const broken = new Set<string>()
    const inner = memoryStore()
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (broken.has(String(key))) return Promise.reject(new Error('connection reset'))
          return value.apply(target, args)
        }
      },
    })
    const texts = { identity: 'You are a careful coding agent.' }
    const sessions = createSessionPrompts({
      build: async () => promptOf([{ name: 'identity', text: texts.identity }]),
      store,
    })
    return { sessions, broken, texts }
  }

  const failed = (operation: string) =>
    `store.${operation} session "s": the store failed (connection reset); check that it is reachable and writable, then retry [failed]`
  const opts = { provider: 'openai', model: 'gpt-4.1' } as const

  it('reading the session, appending a version, listing history and usage', async () => {
    const { sessions, broken, texts } = brokenStore()
    broken.add('getSession')
    expect((await rejection(sessions.construct('s', null))).message).toBe(failed('getSession'))
    broken.clear()
    await sessions.construct('s', null)
    texts.identity = 'You are a terse coding agent.'
    broken.add('appendVersion')
    expect((await rejection(sessions.recompile('s', null, 'fragment-reload'))).message).toBe(
      failed('appendVersion'),
    )
    broken.clear()
    broken.add('history')
    expect((await rejection(sessions.history('s'))).message).toBe(failed('history'))
    broken.clear()
    broken.add('usage')
    expect((await rejection(sessions.usage('s'))).message).toBe(failed('usage'))
  })

  it('recording usage: the earlier calls, the version sent, the previous prompt and the write', async () => {
    const { sessions, broken, texts } = brokenStore()
    const v1 = await sessions.construct('s', null)
    broken.add('usage')
    expect((await rejection(sessions.recordUsage('s', {}, opts))).message).toBe(failed('usage'))
    broken.clear()
    broken.add('recordUsage')
    expect((await rejection(sessions.recordUsage('s', {}, opts))).message).toBe(failed('recordUsage'))
    broken.clear()
    await sessions.recordUsage('s', {}, opts)
    texts.identity = 'You are a terse coding agent.'
    await sessions.recompile('s', null, 'fragment-reload')
    broken.add('history')
    // A report of an earlier version looks it up in the history…
    expect((await rejection(sessions.recordUsage('s', {}, { ...opts, hash: v1.hash }))).message).toBe(
      failed('history'),
    )
    // …and so does the first report of a new version, for the prompt the previous call sent.
    expect((await rejection(sessions.recordUsage('s', {}, opts))).message).toBe(failed('history'))
  })
})
