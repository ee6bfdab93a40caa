import { describe, expect, it } from 'vitest'
import { versionFixture } from '../../test/conformance/prompt-store.js'
import { memoryStore } from './memory-store.js'
import { StoreConflictError, StoreError } from './store-errors.js'

// What a caller of any store reads when it fails (SPEC §8): the operation,
// the session or workspace, what went wrong and what to do, and the code.

describe('StoreError', () => {
  it('names the operation, the subject and the code in its message', () => {
    const cause = new Error('disk full')
    const session = new StoreError({
      code: 'failed',
      operation: 'appendVersion',
      subject: { kind: 'session', id: 's1' },
      detail: 'it broke',
      cause,
    })
    expect(session.message).toBe('store.appendVersion session "s1": it broke [failed]')
    expect(session).toMatchObject({
      name: 'StoreError',
      code: 'failed',
      operation: 'appendVersion',
      subject: { kind: 'session', id: 's1' },
      detail: 'it broke',
    })
    expect(session.cause).toBe(cause)
    const template = new StoreError({
      code: 'invalid',
      operation: 'setTemplate',
      subject: { kind: 'template', workspace: 'ws' },
      detail: 'bad',
    })
    expect(template.message).toBe('store.setTemplate template of workspace "ws": bad [invalid]')
    const none = new StoreError({ code: 'closed', operation: 'history', detail: 'closed' })
    expect(none.message).toBe('store.history: closed [closed]')
    expect(none.subject).toBeUndefined()
  })

  it('a conflict says what was expected and what is stored, or the reason given', () => {
    const subject = { kind: 'session', id: 'c' } as const
    const moved = new StoreConflictError({
      operation: 'appendVersion',
      subject,
      expectedHash: 'A',
      actualHash: 'B',
    })
    expect(moved.message).toBe(
      'store.appendVersion session "c": expected A but B is stored; another writer changed it first, nothing was written: re-read and retry [conflict]',
    )
    expect(moved).toBeInstanceOf(StoreError)
    expect(moved).toMatchObject({
      name: 'StoreConflictError',
      code: 'conflict',
      expectedHash: 'A',
      actualHash: 'B',
    })
    const nothing = new StoreConflictError({
      operation: 'setTemplate',
      subject: { kind: 'template', workspace: 'w' },
      expectedHash: null,
      actualHash: null,
    })
    expect(nothing.detail).toBe(
      'expected nothing stored but nothing is stored; another writer changed it first, nothing was written: re-read and retry',
    )
    expect([nothing.expectedHash, nothing.actualHash]).toEqual([null, null])
    const reason = new StoreConflictError({
      operation: 'x',
      subject,
      expectedHash: 'A',
      actualHash: 'A',
      reason: 'why',
    })
    expect(reason.detail).toBe('why; another writer changed it first, nothing was written: re-read and retry')
  })
})

describe('memoryStore: its errors', () => {
  const reject = (promise: Promise<unknown>): Promise<StoreError> =>
    promise.then(
      () => {
        throw new Error('expected a rejection')
      },
      (error: unknown) => error as StoreError,
    )

  it('a first version not numbered 1', async () => {
    const error = await reject(memoryStore().createSession('s', versionFixture(2, ['x'])))
    expect(error.message).toBe(
      'store.createSession session "s": the first version must be numbered 1, got 2 [invalid]',
    )
  })

  it('appending to or recording usage of a session that does not exist', async () => {
    const store = memoryStore()
    expect((await reject(store.appendVersion('s', versionFixture(2, ['x']), 'h'))).message).toBe(
      'store.appendVersion session "s": no such session; create it with createSession first [not-found]',
    )
    const outcome = {
      version: 1,
      hash: 'h',
      at: '2025-01-01T00:00:00.000Z',
      provider: 'openai',
      inputTokens: 1,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      outcome: 'cold',
    }
    expect((await reject(store.recordUsage('s', outcome as never))).message).toBe(
      'store.recordUsage session "s": no such session; construct it before recording its usage [not-found]',
    )
  })

  it('a stale hash, and a version that is not the next one', async () => {
    const store = memoryStore()
    const v1 = versionFixture(1, ['one'])
    await store.createSession('s', v1)
    const stale = await reject(store.appendVersion('s', versionFixture(2, ['two']), 'sha256:old'))
    expect(stale).toBeInstanceOf(StoreConflictError)
    expect(stale.detail).toBe(
      `expected sha256:old but ${v1.hash} is stored; another writer changed it first, nothing was written: re-read and retry`,
    )
    const skipped = await reject(store.appendVersion('s', versionFixture(3, ['three']), v1.hash))
    expect(skipped.detail).toBe(
      'version 3 is not the next one (the latest is 1); another writer changed it first, nothing was written: re-read and retry',
    )
    expect((await store.getSession('s'))!.versions).toBe(1)
  })

  it('a template whose hash moved', async () => {
    const store = memoryStore()
    const error = await reject(store.setTemplate('w', { template: 't', dialect: 'mustache' }, 'sha256:x'))
    expect(error.message).toBe(
      'store.setTemplate template of workspace "w": expected sha256:x but nothing is stored; another writer changed it first, nothing was written: re-read and retry [conflict]',
    )
    expect(await store.getTemplate('w')).toBeUndefined()
  })

  it('every operation after close, naming it', async () => {
    const store = memoryStore()
    await store.createSession('s', versionFixture(1, ['one']))
    await store.close()
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getTemplate', () => store.getTemplate('w')],
      ['setTemplate', () => store.setTemplate('w', { template: 't', dialect: 'mustache' })],
      ['getSession', () => store.getSession('s')],
      ['createSession', () => store.createSession('s', versionFixture(1, ['one']))],
      ['appendVersion', () => store.appendVersion('s', versionFixture(2, ['x']), 'h')],
      ['history', () => store.history('s')],
      ['recordUsage', () => store.recordUsage('s', {} as never)],
      ['usage', () => store.usage('s')],
    ]
    for (const [operation, call] of calls) {
      expect((await reject(call())).message).toBe(
        `store.${operation}: the store was closed; open a new one [closed]`,
      )
    }
  })
})
