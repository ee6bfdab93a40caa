import { afterEach, describe, expect, it } from 'vitest'
import { promptOf } from '../../src/compile/fixtures.test-helper.js'
import { StoreConflictError, StoreError } from '../../src/compile/store-errors.js'
import type { PromptStore, SessionVersion, UsageOutcome } from '../../src/compile/types.js'
import { hashText } from '../../src/shared/hash.js'
import { describeRecordingConformance } from './recordings.js'
import { type ChildOpen, runStoreChildren } from './store-processes.js'

/** What the suite hands `makeStore`: the clock the store must stamp `updatedAt` with. */
export interface StoreTestContext {
  clock: () => Date
}

export interface PromptStoreConformanceOptions {
  /**
   * Opens a second handle onto the storage `first` uses (another connection,
   * as another process would). When given, concurrent writers race across
   * both handles too.
   */
  openPeer?: (first: PromptStore) => Promise<PromptStore> | PromptStore
  /** Concurrent callers in the race tests; defaults to 24. */
  concurrency?: number
  /**
   * How OS processes open the storage `first` uses, for the multi-process
   * cases; or why the driver cannot share storage across processes (those
   * cases are then skipped, saying why).
   */
  processes: { open: (first: PromptStore) => ChildOpen } | { skip: string }
}

/** Children start under tsx on a busy 2-core machine: a deadline, not a speed claim. */
const PROCESS_TIMEOUT_MS = 300_000

/** The instant the suite's clock reads; stores must stamp `updatedAt` with it. */
export const CONFORMANCE_NOW = new Date('2025-03-01T12:34:56.789Z')

/** Text that trips naive encodings: multi-byte, astral, quotes, backslashes, special tokens. */
const AWKWARD = 'Ünïcødé — 日本語 🧪 "quoted" \\ back\\slash\n\ttab <|endoftext|> {"json": true} \u2028 end'

/** A usage outcome of version `version`, with distinct numbers per `n`. */
export function outcomeFixture(version: number, n: number): UsageOutcome {
  return {
    version,
    at: new Date(Date.UTC(2025, 0, 2, 0, 0, n)).toISOString(),
    provider: n % 2 === 0 ? 'anthropic' : 'openai',
    model: `model-${n}`,
    inputTokens: 2000 + n,
    cachedTokens: n,
    cacheWriteTokens: n % 3,
    outcome: n === 0 ? 'cold' : 'partial',
    ...(n === 0 ? {} : { why: `reason ${n} ${AWKWARD}` }),
  }
}

/** A session version whose prompt has one section per text (SPEC §5 shape). */
export function versionFixture(version: number, texts: string[], reason = 'construct'): SessionVersion {
  const compiled = promptOf(
    texts.map((text, i) => ({ name: `s${i}`, text, stability: i === 0 ? 'static' : 'session' })),
    { tools: [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: {} } }] },
  )
  return {
    version,
    hash: compiled.hash,
    tokens: compiled.tokens,
    reason,
    at: new Date(Date.UTC(2025, 0, 1, 0, 0, version)).toISOString(),
    compiled,
  }
}

/**
 * The shared conformance suite of `PromptStore` (SPEC §8): every driver —
 * `memoryStore`, `sqliteStore`, `postgresStore` — runs it from its own test
 * file. `makeStore` must return a fresh, empty store on each call; the suite
 * closes every store it made (and every peer) after each test.
 */
export function describePromptStoreConformance(
  name: string,
  makeStore: (context: StoreTestContext) => Promise<PromptStore> | PromptStore,
  options: PromptStoreConformanceOptions,
): void {
  const concurrency = options.concurrency ?? 24
  const open: PromptStore[] = []

  const fresh = async (): Promise<PromptStore> => {
    const store = await makeStore({ clock: () => new Date(CONFORMANCE_NOW) })
    open.push(store)
    return store
  }

  /** The store plus, when the driver has peers, a second handle onto it. */
  const handles = async (): Promise<PromptStore[]> => {
    const store = await fresh()
    if (options.openPeer === undefined) return [store]
    const peer = await options.openPeer(store)
    open.push(peer)
    return [store, peer]
  }

  describe(`PromptStore conformance: ${name}`, () => {
    afterEach(async () => {
      const stores = open.splice(0)
      for (const store of stores.reverse()) await store.close?.()
    })

    describe('templates', () => {
      it('reads undefined for a workspace never set', async () => {
        const store = await fresh()
        expect(await store.getTemplate('nowhere')).toBeUndefined()
      })

      it('stores the template with its hash and the clock time, and reads it back', async () => {
        const store = await fresh()
        const set = await store.setTemplate('ws', { template: AWKWARD, dialect: 'bracket' })
        expect(set).toEqual({
          workspace: 'ws',
          template: AWKWARD,
          dialect: 'bracket',
          hash: hashText(AWKWARD),
          updatedAt: CONFORMANCE_NOW.toISOString(),
        })
        expect(await store.getTemplate('ws')).toEqual(set)
      })

      it('keeps workspaces apart', async () => {
        const store = await fresh()
        await store.setTemplate('a', { template: 'A', dialect: 'mustache' })
        await store.setTemplate('b', { template: 'B', dialect: 'bracket' })
        expect((await store.getTemplate('a'))?.template).toBe('A')
        expect((await store.getTemplate('b'))?.template).toBe('B')
      })

      it('overwrites without an expected hash', async () => {
        const store = await fresh()
        await store.setTemplate('ws', { template: 'one', dialect: 'mustache' })
        await store.setTemplate('ws', { template: 'two', dialect: 'bracket' })
        expect(await store.getTemplate('ws')).toMatchObject({
          template: 'two',
          dialect: 'bracket',
          hash: hashText('two'),
        })
      })

      it('compare-and-set: writes when the expected hash is the stored one', async () => {
        const store = await fresh()
        const first = await store.setTemplate('ws', { template: 'one', dialect: 'mustache' })
        const second = await store.setTemplate('ws', { template: 'two', dialect: 'mustache' }, first.hash)
        expect(second.hash).toBe(hashText('two'))
        expect(await store.getTemplate('ws')).toEqual(second)
      })

      it('compare-and-set: a stale expected hash rejects with a conflict and writes nothing', async () => {
        const store = await fresh()
        const first = await store.setTemplate('ws', { template: 'one', dialect: 'mustache' })
        await store.setTemplate('ws', { template: 'two', dialect: 'mustache' }, first.hash)
        const stale = store.setTemplate('ws', { template: 'three', dialect: 'mustache' }, first.hash)
        await expect(stale).rejects.toBeInstanceOf(StoreConflictError)
        await expect(stale).rejects.toMatchObject({
          code: 'conflict',
          expectedHash: first.hash,
          actualHash: hashText('two'),
        })
        expect((await store.getTemplate('ws'))?.template).toBe('two')
      })

      it('compare-and-set: null expects nothing stored', async () => {
        const store = await fresh()
        const created = await store.setTemplate('ws', { template: 'one', dialect: 'mustache' }, null)
        expect(created.template).toBe('one')
        await expect(
          store.setTemplate('ws', { template: 'two', dialect: 'mustache' }, null),
        ).rejects.toMatchObject({
          code: 'conflict',
          expectedHash: null,
        })
        expect((await store.getTemplate('ws'))?.template).toBe('one')
      })

      it('compare-and-set: a hash expected where nothing is stored conflicts', async () => {
        const store = await fresh()
        await expect(
          store.setTemplate('ws', { template: 'x', dialect: 'mustache' }, hashText('y')),
        ).rejects.toMatchObject({
          code: 'conflict',
          actualHash: null,
        })
        expect(await store.getTemplate('ws')).toBeUndefined()
      })

      it('compare-and-set under concurrency: exactly one of many writers with the same expected hash wins', async () => {
        const stores = await handles()
        const base = await stores[0]!.setTemplate('ws', { template: 'base', dialect: 'mustache' })
        const results = await Promise.allSettled(
          Array.from({ length: concurrency }, (_, i) =>
            stores[i % stores.length]!.setTemplate(
              'ws',
              { template: `writer ${i}`, dialect: 'mustache' },
              base.hash,
            ),
          ),
        )
        const won = results.filter((r) => r.status === 'fulfilled')
        expect(won).toHaveLength(1)
        for (const r of results) {
          if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreConflictError)
        }
        const winner = (won[0] as PromiseFulfilledResult<{ template: string }>).value
        for (const store of stores) expect((await store.getTemplate('ws'))?.template).toBe(winner.template)
      })
    })

    describe('sessions', () => {
      it('reads undefined and an empty history for an unknown session', async () => {
        const store = await fresh()
        expect(await store.getSession('nope')).toBeUndefined()
        expect(await store.history('nope')).toEqual([])
      })

      it('creates a session whose record survives a round trip deep-equal', async () => {
        const store = await fresh()
        const v1 = versionFixture(1, [AWKWARD, 'second section'])
        const record = await store.createSession('s', v1)
        expect(record).toEqual({ id: 's', current: v1, versions: 1 })
        expect(await store.getSession('s')).toEqual(record)
        expect(await store.history('s')).toEqual([v1])
        expect((await store.getSession('s'))?.current.compiled.text).toBe(v1.compiled.text)
      })

      it('first writer wins: a second create returns the existing record unchanged', async () => {
        const store = await fresh()
        const v1 = versionFixture(1, ['first'])
        await store.createSession('s', v1)
        const again = await store.createSession('s', versionFixture(1, ['second']))
        expect(again).toEqual({ id: 's', current: v1, versions: 1 })
        expect(await store.history('s')).toEqual([v1])
      })

      it('first writer wins under concurrency: one winner, and every caller gets the same record', async () => {
        const stores = await handles()
        const candidates = Array.from({ length: concurrency }, (_, i) =>
          versionFixture(1, [`candidate ${i}`]),
        )
        const records = await Promise.all(
          candidates.map((v, i) => stores[i % stores.length]!.createSession('race', v)),
        )
        const winner = records[0]!
        expect(candidates.map((c) => c.hash)).toContain(winner.current.hash)
        for (const record of records) expect(record).toEqual(winner)
        for (const store of stores) {
          expect(await store.getSession('race')).toEqual(winner)
          expect(await store.history('race')).toHaveLength(1)
        }
      })

      it('rejects a first version not numbered 1 and stores nothing', async () => {
        const store = await fresh()
        await expect(store.createSession('s', versionFixture(2, ['x']))).rejects.toMatchObject({
          code: 'invalid',
        })
        expect(await store.getSession('s')).toBeUndefined()
      })

      it('appends versions numbered 1..n and lists them oldest first', async () => {
        const store = await fresh()
        const versions = [1, 2, 3, 4, 5].map((n) =>
          versionFixture(n, [`text ${n}`], n === 1 ? 'construct' : `reason ${n}`),
        )
        await store.createSession('s', versions[0]!)
        for (let i = 1; i < versions.length; i++) {
          const record = await store.appendVersion('s', versions[i]!, versions[i - 1]!.hash)
          expect(record).toEqual({ id: 's', current: versions[i], versions: i + 1 })
        }
        const history = await store.history('s')
        expect(history).toEqual(versions)
        expect(history.map((v) => v.version)).toEqual([1, 2, 3, 4, 5])
        expect(await store.getSession('s')).toEqual({ id: 's', current: versions[4], versions: 5 })
      })

      it('appendVersion compare-and-set: a stale expected hash rejects with a conflict and writes nothing', async () => {
        const store = await fresh()
        const v1 = versionFixture(1, ['one'])
        const v2 = versionFixture(2, ['two'], 'model-change')
        await store.createSession('s', v1)
        await store.appendVersion('s', v2, v1.hash)
        const stale = store.appendVersion('s', versionFixture(3, ['three']), v1.hash)
        await expect(stale).rejects.toBeInstanceOf(StoreConflictError)
        await expect(stale).rejects.toMatchObject({
          code: 'conflict',
          expectedHash: v1.hash,
          actualHash: v2.hash,
        })
        expect(await store.history('s')).toEqual([v1, v2])
        expect(await store.getSession('s')).toEqual({ id: 's', current: v2, versions: 2 })
      })

      it('appendVersion compare-and-set: a version number that is not the next one conflicts (A → B → A)', async () => {
        const store = await fresh()
        const a = versionFixture(1, ['A'])
        await store.createSession('s', a)
        await store.appendVersion('s', versionFixture(2, ['B']), a.hash)
        await store.appendVersion('s', versionFixture(3, ['A']), versionFixture(2, ['B']).hash)
        // A writer that read version 1 (hash A) still sees hash A as latest.
        await expect(store.appendVersion('s', versionFixture(2, ['C']), a.hash)).rejects.toBeInstanceOf(
          StoreConflictError,
        )
        expect(await store.history('s')).toHaveLength(3)
      })

      it('appendVersion compare-and-set under concurrency: exactly one writer wins', async () => {
        const stores = await handles()
        const v1 = versionFixture(1, ['base'])
        await stores[0]!.createSession('s', v1)
        const results = await Promise.allSettled(
          Array.from({ length: concurrency }, (_, i) =>
            stores[i % stores.length]!.appendVersion('s', versionFixture(2, [`next ${i}`]), v1.hash),
          ),
        )
        const won = results.filter((r) => r.status === 'fulfilled')
        expect(won).toHaveLength(1)
        for (const r of results) {
          if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreConflictError)
        }
        for (const store of stores) {
          const history = await store.history('s')
          expect(history.map((v) => v.version)).toEqual([1, 2])
        }
      })

      it('appendVersion to an unknown session rejects with not-found', async () => {
        const store = await fresh()
        await expect(
          store.appendVersion('ghost', versionFixture(2, ['x']), hashText('x')),
        ).rejects.toMatchObject({
          code: 'not-found',
        })
        expect(await store.getSession('ghost')).toBeUndefined()
      })

      it('keeps sessions apart', async () => {
        const store = await fresh()
        await store.createSession('a', versionFixture(1, ['A']))
        await store.createSession('b', versionFixture(1, ['B']))
        await store.appendVersion('a', versionFixture(2, ['A2']), versionFixture(1, ['A']).hash)
        expect((await store.getSession('a'))?.versions).toBe(2)
        expect((await store.getSession('b'))?.versions).toBe(1)
        expect(await store.history('b')).toEqual([versionFixture(1, ['B'])])
      })
    })

    describe('usage', () => {
      it('records outcomes and reads them back deep-equal, in order', async () => {
        const store = await fresh()
        await store.createSession('s', versionFixture(1, ['one']))
        const outcomes = [0, 1, 2, 3].map((n) => outcomeFixture(1, n))
        for (const outcome of outcomes) await store.recordUsage('s', outcome)
        expect(await store.usage('s')).toEqual(outcomes)
      })

      it('reads an empty list for a session without usage or an unknown one', async () => {
        const store = await fresh()
        await store.createSession('s', versionFixture(1, ['one']))
        expect(await store.usage('s')).toEqual([])
        expect(await store.usage('nope')).toEqual([])
      })

      it('rejects usage of an unknown session with not-found and stores nothing', async () => {
        const store = await fresh()
        await expect(store.recordUsage('ghost', outcomeFixture(1, 1))).rejects.toMatchObject({
          code: 'not-found',
        })
        expect(await store.usage('ghost')).toEqual([])
      })

      it('keeps usage of sessions apart', async () => {
        const store = await fresh()
        await store.createSession('a', versionFixture(1, ['A']))
        await store.createSession('b', versionFixture(1, ['B']))
        await store.recordUsage('a', outcomeFixture(1, 1))
        expect(await store.usage('b')).toEqual([])
        expect(await store.usage('a')).toHaveLength(1)
      })

      it('loses no outcome recorded concurrently from several handles', async () => {
        const stores = await handles()
        await stores[0]!.createSession('s', versionFixture(1, ['one']))
        const outcomes = Array.from({ length: concurrency }, (_, n) => outcomeFixture(1, n))
        await Promise.all(outcomes.map((o, i) => stores[i % stores.length]!.recordUsage('s', o)))
        const read = await stores[0]!.usage('s')
        const key = (o: UsageOutcome) => o.model
        expect(read.map(key).sort()).toEqual(outcomes.map(key).sort())
      })
    })

    describeRecordingConformance(fresh, handles, concurrency, options.processes)

    describe('several OS processes', () => {
      const spawnable = 'open' in options.processes ? options.processes : undefined
      const skipped = 'skip' in options.processes ? options.processes.skip : undefined
      const runs = spawnable === undefined ? it.skip : it
      const suffix = skipped === undefined ? '' : ` (skipped: ${skipped})`

      runs(
        `construct the same session at once: exactly one version, every caller the same bytes${suffix}`,
        async () => {
          const store = await fresh()
          const results = await runStoreChildren(spawnable!.open(store), 4, (index) => ({
            task: 'construct',
            id: 'shared',
            index,
          }))
          const current = await store.getSession('shared')
          expect(current?.versions).toBe(1)
          expect(await store.history('shared')).toHaveLength(1)
          for (const result of results) {
            expect(result.hash).toBe(current!.current.hash)
            expect(result.textHash).toBe(hashText(current!.current.compiled.text))
          }
        },
        PROCESS_TIMEOUT_MS,
      )

      runs(
        `race appends: no version lost or duplicated${suffix}`,
        async () => {
          const store = await fresh()
          const base = versionFixture(1, ['base'])
          await store.createSession('raced', base)
          const perProcess = 8
          const results = await runStoreChildren(spawnable!.open(store), 3, (index) => ({
            task: 'append',
            id: 'raced',
            index,
            count: perProcess,
          }))
          const history = await store.history('raced')
          const appended = results.flatMap((r) => r.appended as string[])
          expect(appended).toHaveLength(3 * perProcess)
          expect(history.map((v) => v.version)).toEqual(
            Array.from({ length: 1 + appended.length }, (_, i) => i + 1),
          )
          expect(
            history
              .slice(1)
              .map((v) => v.hash)
              .sort(),
          ).toEqual([...appended].sort())
          expect(new Set(appended).size).toBe(appended.length)
        },
        PROCESS_TIMEOUT_MS,
      )
    })

    describe('isolation', () => {
      it('mutating what was passed in or handed out never changes stored state', async () => {
        const store = await fresh()
        const v1 = versionFixture(1, ['original'])
        const pristine = structuredClone(v1)
        await store.createSession('s', v1)
        v1.compiled.text = 'mutated input'
        v1.compiled.sections.pop()
        const read = await store.getSession('s')
        read!.current.compiled.text = 'mutated output'
        const history = await store.history('s')
        history[0]!.reason = 'mutated history'
        history.push(versionFixture(2, ['extra']))
        expect(await store.getSession('s')).toEqual({ id: 's', current: pristine, versions: 1 })
        expect(await store.history('s')).toEqual([pristine])

        const template = await store.setTemplate('ws', { template: 'kept', dialect: 'mustache' })
        template.template = 'mutated'
        expect((await store.getTemplate('ws'))?.template).toBe('kept')
      })
    })

    describe('close', () => {
      it('rejects calls after close with a StoreError coded closed; closing twice is harmless', async () => {
        const store = await fresh()
        expect(store.close, 'every driver has close() (SPEC §8)').toBeTypeOf('function')
        await store.close!()
        // A second close is harmless: the suite closes every store again after each test.
        await store.close!()
        const after = store.getSession('s')
        await expect(after).rejects.toBeInstanceOf(StoreError)
        await expect(after).rejects.toMatchObject({ code: 'closed' })
      })
    })
  })
}
