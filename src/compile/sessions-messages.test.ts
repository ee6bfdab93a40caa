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
