import { describe, expect, it } from 'vitest'
import { countingStore } from './counting.test-helper.js'
import { promptOf } from './fixtures.test-helper.js'
import { memoryStore } from './memory-store.js'
import { CONSTRUCT_REASON, createSessionPrompts, SESSION_REASONS } from './sessions.js'
import { StoreConflictError, StoreError } from './store-errors.js'
import type { CompiledPrompt, PromptStore } from './types.js'

interface Ctx {
  model: string
  date: string
}

const ctx = (model = 'model-a', date = '2025-03-01'): Ctx => ({ model, date })

/** A build like a harness's: identity, the model, and the date frozen into the prompt. */
function counted() {
  const calls: Ctx[] = []
  const build = async (c: Ctx): Promise<CompiledPrompt> => {
    calls.push(c)
    return promptOf([
      { name: 'identity', text: 'You are a careful coding agent.' },
      { name: 'model', text: `Model: ${c.model}`, stability: 'session' },
      { name: 'date', text: `Today is ${c.date}.`, stability: 'session' },
    ])
  }
  return { build, calls }
}

const fixedClock = (iso: string) => () => new Date(iso)

/** A promise the test settles by hand, and one that says when a build reached it. */
function gate() {
  let open!: () => void
  let arrive!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const reached = new Promise<void>((resolve) => (arrive = resolve))
  return { open, arrive, opened, reached }
}

/** `counted().build`, except that a build for a model with a gate waits until it opens; `calls` lists the builds started. */
function gated(gates: Record<string, ReturnType<typeof gate>>) {
  const inner = counted()
  const calls: Ctx[] = []
  const build = async (c: Ctx): Promise<CompiledPrompt> => {
    calls.push(c)
    const g = gates[c.model]
    if (g !== undefined) {
      g.arrive()
      await g.opened
    }
    return inner.build(c)
  }
  return { build, calls }
}

/** Every pending promise callback has run: the memory store answers within microtasks. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('createSessionPrompts', () => {
  it('exports the well-known reasons', () => {
    expect(SESSION_REASONS).toEqual([
      'model-change',
      'autonomy-change',
      'fragment-reload',
      'session-switch',
      'template-change',
      'compaction',
    ])
    expect(CONSTRUCT_REASON).toBe('construct')
  })

  it('construct builds and persists version 1 with reason construct, stamped by the clock', async () => {
    const { build } = counted()
    const store = memoryStore()
    const sessions = createSessionPrompts({ build, store, clock: fixedClock('2025-03-01T09:00:00.000Z') })
    const compiled = await sessions.construct('s1', ctx())
    expect(compiled.text).toContain('Model: model-a')
    const history = await sessions.history('s1')
    expect(history).toHaveLength(1)
    expect(history[0]).toMatchObject({
      version: 1,
      reason: 'construct',
      at: '2025-03-01T09:00:00.000Z',
      hash: compiled.hash,
      tokens: compiled.tokens,
    })
    expect(history[0]!.compiled).toEqual(compiled)
  })

  it('first writer wins: 20 concurrent constructs build once and all get the same bytes', async () => {
    const { build, calls } = counted()
    const sessions = createSessionPrompts({ build })
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => sessions.construct('s1', ctx(`model-${i}`))),
    )
    expect(calls).toHaveLength(1)
    expect(new Set(results.map((r) => r.text)).size).toBe(1)
    expect(results.every((r) => r.hash === results[0]!.hash)).toBe(true)
    expect(await sessions.history('s1')).toHaveLength(1)
  })

  it('first writer wins across processes sharing a store: one version, every caller gets its bytes', async () => {
    const store = memoryStore()
    const processes = Array.from({ length: 4 }, () => createSessionPrompts({ build: counted().build, store }))
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => processes[i % 4]!.construct('shared', ctx(`model-${i % 4}`))),
    )
    const history = await store.history('shared')
    expect(history).toHaveLength(1)
    for (const r of results) expect(r.text).toBe(history[0]!.compiled.text)
  })

  it('returns the stored prompt byte-identical even when build would now produce other bytes', async () => {
    const store = memoryStore()
    const first = createSessionPrompts({ build: counted().build, store })
    const original = await first.construct('s1', ctx('model-a', '2025-03-01'))

    // A restarted process on the next day: the date moved, the prompt must not.
    const { build, calls } = counted()
    const restarted = createSessionPrompts({ build, store })
    const again = await restarted.construct('s1', ctx('model-a', '2025-03-02'))
    expect(calls).toHaveLength(0)
    expect(again.text).toBe(original.text)
    expect(again.hash).toBe(original.hash)
    expect(await restarted.history('s1')).toHaveLength(1)
  })

  it('recompile with unchanged bytes appends nothing and returns the stored prompt', async () => {
    const sessions = createSessionPrompts({ build: counted().build })
    const original = await sessions.construct('s1', ctx())
    const result = await sessions.recompile('s1', ctx(), 'fragment-reload')
    expect(result).toEqual({ compiled: original, changed: false })
    expect(result.compiled.text).toBe(original.text)
    expect(await sessions.history('s1')).toHaveLength(1)
  })

  it('recompile with changed bytes appends version 2 with the reason and a diff', async () => {
    let now = '2025-03-01T09:00:00.000Z'
    const sessions = createSessionPrompts({ build: counted().build, clock: () => new Date(now) })
    const original = await sessions.construct('s1', ctx('model-a'))
    now = '2025-03-01T10:00:00.000Z'
    const result = await sessions.recompile('s1', ctx('model-b'), 'model-change')
    expect(result.changed).toBe(true)
    expect(result.compiled.text).toContain('Model: model-b')
    expect(result.diff).toMatchObject({
      identical: false,
      section: 'model',
      changed: ['model'],
      added: [],
      removed: [],
    })
    expect(result.diff!.firstDifference).toBe(original.text.indexOf('model-a') + 'model-'.length)
    const history = await sessions.history('s1')
    expect(history.map((v) => [v.version, v.reason, v.at])).toEqual([
      [1, 'construct', '2025-03-01T09:00:00.000Z'],
      [2, 'model-change', '2025-03-01T10:00:00.000Z'],
    ])
    expect(await sessions.get('s1')).toEqual(result.compiled)
    expect(await sessions.construct('s1', ctx('model-a'))).toEqual(result.compiled)
  })

  it('history lists versions oldest first, numbered 1..n, with their reasons', async () => {
    const sessions = createSessionPrompts({ build: counted().build })
    await sessions.construct('s1', ctx('a'))
    await sessions.recompile('s1', ctx('b'), 'model-change')
    await sessions.recompile('s1', ctx('b'), 'autonomy-change') // unchanged: no version
    await sessions.recompile('s1', ctx('b', '2025-03-02'), 'compaction')
    const history = await sessions.history('s1')
    expect(history.map((v) => [v.version, v.reason])).toEqual([
      [1, 'construct'],
      [2, 'model-change'],
      [3, 'compaction'],
    ])
    expect(await sessions.history('unknown')).toEqual([])
  })

  it('recompile of an unknown session constructs it: reason construct, changed, no diff', async () => {
    const sessions = createSessionPrompts({ build: counted().build })
    const result = await sessions.recompile('fresh', ctx(), 'model-change')
    expect(result.changed).toBe(true)
    expect(result.diff).toBeUndefined()
    const history = await sessions.history('fresh')
    expect(history.map((v) => [v.version, v.reason])).toEqual([[1, 'construct']])
    expect(history[0]!.compiled).toEqual(result.compiled)
  })

  it('concurrent recompiles in one process run in turn: no conflicts, versions 1..n', async () => {
    const sessions = createSessionPrompts({ build: counted().build })
    await sessions.construct('s1', ctx('m0'))
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sessions.recompile('s1', ctx(`m${i + 1}`), 'model-change')),
    )
    expect(results.every((r) => r.changed)).toBe(true)
    const history = await sessions.history('s1')
    expect(history.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  })

  it('a recompile queued behind another still waits for it after the first one is done', async () => {
    const gates = { b: gate() }
    const { build, calls } = gated(gates)
    const sessions = createSessionPrompts({ build })
    await sessions.construct('s1', ctx('m0'))
    const first = sessions.recompile('s1', ctx('a'), 'model-change')
    const second = sessions.recompile('s1', ctx('b'), 'autonomy-change')
    await first
    await gates.b.reached
    const third = sessions.recompile('s1', ctx('c'), 'compaction')
    await settled()
    expect(calls.map((c) => c.model)).toEqual(['m0', 'a', 'b'])
    gates.b.open()
    await Promise.all([second, third])
    const history = await sessions.history('s1')
    expect(history.map((v) => [v.version, v.reason])).toEqual([
      [1, 'construct'],
      [2, 'model-change'],
      [3, 'autonomy-change'],
      [4, 'compaction'],
    ])
  })

  it('construct serves the current prompt at once while a recompile of the session is under way', async () => {
    const gates = { b: gate() }
    const sessions = createSessionPrompts({ build: gated(gates).build })
    const original = await sessions.construct('s1', ctx('a'))
    const recompiled = sessions.recompile('s1', ctx('b'), 'model-change')
    await gates.b.reached
    const during = sessions.construct('s1', ctx('c'))
    gates.b.open()
    expect(await during).toEqual(original)
    expect((await recompiled).compiled.text).toContain('Model: b')
  })

  it('keeps cacheSize sessions in memory and reads the others from the store again', async () => {
    const { store, counts } = countingStore(memoryStore())
    const sessions = createSessionPrompts({ build: counted().build, store, cacheSize: 1 })
    await sessions.construct('s1', ctx('a'))
    await sessions.construct('s2', ctx('b'))
    const reads = counts.getSession
    expect((await sessions.get('s2'))?.text).toContain('Model: b')
    expect(counts.getSession).toBe(reads)
    expect((await sessions.get('s1'))?.text).toContain('Model: a')
    expect(counts.getSession).toBe(reads! + 1)
  })

  it('recompile of a session another process created meanwhile with other bytes replaces its version', async () => {
    const inner = memoryStore()
    let raced = false
    const store: PromptStore = {
      ...inner,
      getSession: async (id) => {
        if (raced) return inner.getSession(id)
        // Our read finds nothing; the other process creates the session right after.
        raced = true
        const other = await counted().build(ctx('model-x'))
        await inner.createSession(id, {
          version: 1,
          hash: other.hash,
          tokens: other.tokens,
          reason: 'construct',
          at: '2025-03-01T08:00:00.000Z',
          compiled: other,
        })
        return undefined
      },
    }
    const sessions = createSessionPrompts({ build: counted().build, store })
    const result = await sessions.recompile('s1', ctx('model-b'), 'model-change')
    expect(result.changed).toBe(true)
    expect(result.compiled.text).toContain('Model: model-b')
    expect(result.diff).toMatchObject({ section: 'model', changed: ['model'] })
    const history = await sessions.history('s1')
    expect(history.map((v) => [v.version, v.reason])).toEqual([
      [1, 'construct'],
      [2, 'model-change'],
    ])
    expect(history[0]!.compiled.text).toContain('Model: model-x')
  })

  describe('get', () => {
    it('returns undefined for an unknown session', async () => {
      const sessions = createSessionPrompts({ build: counted().build })
      expect(await sessions.get('nope')).toBeUndefined()
    })

    it('fills its cache from the store on a miss, then serves reads without the store', async () => {
      const store = memoryStore()
      const original = await createSessionPrompts({ build: counted().build, store }).construct('s1', ctx())
      const { store: watched, counts } = countingStore(store)
      const sessions = createSessionPrompts({ build: counted().build, store: watched })
      expect((await sessions.get('s1'))?.text).toBe(original.text)
      expect((await sessions.get('s1'))?.text).toBe(original.text)
      expect(await sessions.construct('s1', ctx('other'))).toEqual(original)
      expect(counts.getSession).toBe(1)
    })

    it('hands out frozen prompts, so a caller cannot corrupt the cache', async () => {
      const sessions = createSessionPrompts({ build: counted().build })
      const compiled = await sessions.construct('s1', ctx())
      expect(() => {
        compiled.text = 'changed'
      }).toThrow(TypeError)
      expect(() => compiled.sections.pop()).toThrow(TypeError)
      expect((await sessions.get('s1'))?.text).toContain('Model: model-a')
    })
  })

  describe('errors', () => {
    it('build errors propagate to every waiting caller, and the next construct builds again', async () => {
      let fail = true
      let failures = 0
      const { build } = counted()
      const sessions = createSessionPrompts({
        build: async (c: Ctx) => {
          if (fail) {
            failures++
            throw new Error('fragment missing')
          }
          return build(c)
        },
      })
      const attempts = await Promise.allSettled(
        Array.from({ length: 5 }, () => sessions.construct('s1', ctx())),
      )
      expect(attempts.map((a) => a.status)).toEqual(Array(5).fill('rejected'))
      expect(failures).toBe(1)
      expect((attempts[0] as PromiseRejectedResult).reason.message).toBe('fragment missing')
      expect(await sessions.history('s1')).toEqual([])
      fail = false
      expect((await sessions.construct('s1', ctx())).text).toContain('Model: model-a')
    })

    it('a driver failure surfaces as a StoreError naming the operation and session, with the cause', async () => {
      const cause = new Error('SQLITE_FULL: database or disk is full')
      const store: PromptStore = {
        ...memoryStore(),
        createSession: async () => {
          throw cause
        },
      }
      const sessions = createSessionPrompts({ build: counted().build, store })
      const error = await sessions.construct('chat-9', ctx()).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StoreError)
      expect(error).toMatchObject({ code: 'failed', operation: 'createSession', cause })
      expect((error as Error).message).toContain('session "chat-9"')
      expect((error as Error).message).toContain('SQLITE_FULL')
      expect(await sessions.get('chat-9')).toBeUndefined()
    })

    it('a conflict is retried once after re-reading, on top of the other writer’s version', async () => {
      const inner = memoryStore()
      let raced = false
      const store: PromptStore = {
        ...inner,
        appendVersion: async (id, version, expectedHash) => {
          if (!raced) {
            // Another process appends first, between our read and our write.
            raced = true
            const other = await counted().build(ctx('model-x'))
            await inner.appendVersion(
              id,
              {
                ...version,
                hash: other.hash,
                tokens: other.tokens,
                reason: 'session-switch',
                compiled: other,
              },
              expectedHash,
            )
          }
          return inner.appendVersion(id, version, expectedHash)
        },
      }
      const sessions = createSessionPrompts({ build: counted().build, store })
      await sessions.construct('s1', ctx('model-a'))
      const result = await sessions.recompile('s1', ctx('model-b'), 'model-change')
      expect(result.changed).toBe(true)
      expect(result.diff?.changed).toEqual(['model'])
      const history = await sessions.history('s1')
      expect(history.map((v) => [v.version, v.reason])).toEqual([
        [1, 'construct'],
        [2, 'session-switch'],
        [3, 'model-change'],
      ])
      expect(history[2]!.compiled.text).toContain('Model: model-b')
    })

    it('after a conflict, a re-read showing the same bytes means nothing changed', async () => {
      const inner = memoryStore()
      let raced = false
      const store: PromptStore = {
        ...inner,
        appendVersion: async (id, version, expectedHash) => {
          if (!raced) {
            raced = true
            await inner.appendVersion(id, { ...version, reason: 'model-change' }, expectedHash)
          }
          return inner.appendVersion(id, version, expectedHash)
        },
      }
      const sessions = createSessionPrompts({ build: counted().build, store })
      await sessions.construct('s1', ctx('model-a'))
      const result = await sessions.recompile('s1', ctx('model-b'), 'model-change')
      expect(result.changed).toBe(false)
      expect(result.compiled.text).toContain('Model: model-b')
      expect(await sessions.history('s1')).toHaveLength(2)
    })

    it('a conflict on a session that is gone when re-read surfaces as the StoreConflictError', async () => {
      const inner = memoryStore()
      const conflict = new StoreConflictError({
        operation: 'appendVersion',
        subject: { kind: 'session', id: 's1' },
        expectedHash: 'sha256:old',
        actualHash: null,
      })
      let reads = 0
      const store: PromptStore = {
        ...inner,
        // The first read finds the session; another process deletes it before the re-read.
        getSession: async (id) => (++reads === 1 ? inner.getSession(id) : undefined),
        appendVersion: async () => {
          throw conflict
        },
      }
      await createSessionPrompts({ build: counted().build, store: inner }).construct('s1', ctx('model-a'))
      const sessions = createSessionPrompts({ build: counted().build, store })
      const error = await sessions.recompile('s1', ctx('model-b'), 'model-change').catch((e: unknown) => e)
      expect(error).toBe(conflict)
      expect(reads).toBe(2)
    })

    it('a second conflict surfaces as the StoreConflictError, with nothing written', async () => {
      const inner = memoryStore()
      const { store, counts } = countingStore({
        ...inner,
        appendVersion: async (id) => {
          throw new StoreConflictError({
            operation: 'appendVersion',
            subject: { kind: 'session', id },
            expectedHash: 'sha256:old',
            actualHash: 'sha256:new',
          })
        },
      })
      const sessions = createSessionPrompts({ build: counted().build, store })
      await sessions.construct('s1', ctx('model-a'))
      const error = await sessions.recompile('s1', ctx('model-b'), 'model-change').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StoreConflictError)
      expect((error as Error).message).toContain('session "s1"')
      expect(counts.appendVersion).toBe(2)
      expect(await sessions.history('s1')).toHaveLength(1)
      expect((await sessions.get('s1'))?.text).toContain('Model: model-a')
    })
  })
})
