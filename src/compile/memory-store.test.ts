import { describe, expect, it } from 'vitest'
import { describePromptStoreConformance, versionFixture } from '../../test/conformance/prompt-store.js'
import { memoryStore } from './memory-store.js'
import { StoreConflictError } from './store-errors.js'

describePromptStoreConformance('memoryStore', ({ clock }) => memoryStore({ clock }), {
  processes: { skip: 'a memory store lives inside one process, so no other process can share it' },
})

describe('memoryStore', () => {
  it('stamps updatedAt from the system clock by default, as ISO 8601', async () => {
    const store = memoryStore()
    const { updatedAt } = await store.setTemplate('ws', { template: 't', dialect: 'mustache' })
    expect(new Date(updatedAt).toISOString()).toBe(updatedAt)
  })

  it('reads the injected clock on every write', async () => {
    let now = new Date('2025-01-01T00:00:00.000Z')
    const store = memoryStore({ clock: () => now })
    await store.setTemplate('ws', { template: 'a', dialect: 'mustache' })
    now = new Date('2025-06-01T08:00:00.000Z')
    const second = await store.setTemplate('ws', { template: 'b', dialect: 'mustache' })
    expect(second.updatedAt).toBe('2025-06-01T08:00:00.000Z')
  })

  it('does not share state between two stores', async () => {
    const a = memoryStore()
    const b = memoryStore()
    await a.createSession('s', versionFixture(1, ['x']))
    expect(await b.getSession('s')).toBeUndefined()
  })

  it('names what conflicted: a template by its workspace, a version by its operation', async () => {
    const store = memoryStore()
    await store.setTemplate('ws', { template: 'a', dialect: 'mustache' })
    const template = await store
      .setTemplate('ws', { template: 'b', dialect: 'mustache' }, 'sha256:stale')
      .catch((e) => e)
    expect(template).toBeInstanceOf(StoreConflictError)
    expect(template.subject).toEqual({ kind: 'template', workspace: 'ws' })
    const v1 = versionFixture(1, ['one'])
    await store.createSession('chat-8', v1)
    // The expected hash is current, but the version skips a number.
    const skipped = await store.appendVersion('chat-8', versionFixture(3, ['three']), v1.hash).catch((e) => e)
    expect(skipped).toBeInstanceOf(StoreConflictError)
    expect(skipped.operation).toBe('appendVersion')
  })

  it('says in the conflict message which session moved and what to do', async () => {
    const store = memoryStore()
    const v1 = versionFixture(1, ['one'])
    await store.createSession('chat-7', v1)
    await store.appendVersion('chat-7', versionFixture(2, ['two']), v1.hash)
    const error = await store.appendVersion('chat-7', versionFixture(3, ['three']), v1.hash).catch((e) => e)
    expect(error).toBeInstanceOf(StoreConflictError)
    expect(error.message).toContain('store.appendVersion session "chat-7"')
    expect(error.message).toContain('re-read and retry')
    expect(error.subject).toEqual({ kind: 'session', id: 'chat-7' })
  })
})
