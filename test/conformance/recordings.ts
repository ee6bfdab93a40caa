import { describe, expect, it } from 'vitest'
import type { CallRecord } from '../../src/compile/call-record.js'
import { StoreError } from '../../src/compile/store-errors.js'
import type { PromptStore, SessionVersion } from '../../src/compile/types.js'
import { hashText } from '../../src/shared/hash.js'
import { outcomeFixture, versionFixture } from './prompt-store.js'
import { type ChildOpen, runStoreChildren } from './store-processes.js'

/** Multi-byte, astral, quotes, backslashes, a line separator: what naive encodings break. */
const AWKWARD = 'Ünïcødé — 日本語 🧪 "quoted" \\ back\\slash\n\ttab <|endoftext|> \u2028 end'

/** A recording's version `n`: its sections are the parts, keyed by `prefix`. */
export function recordedVersion(n: number, prefix: string, texts = [`tools ${prefix}`, `system ${prefix}`]) {
  return { ...versionFixture(n, texts, n === 1 ? 'construct' : 'prefix'), prefixHash: hashText(prefix) }
}

/** A recorded call of `session` at second `n` of the day, with every optional field unless `minimal`. */
export function callFixture(session: string, n: number, minimal = false): Omit<CallRecord, 'call'> {
  const base: Omit<CallRecord, 'call'> = {
    session,
    version: 1,
    conversation: `conversation ${AWKWARD}`,
    harness: 'claude',
    provider: 'anthropic',
    endpoint: 'anthropic.messages',
    model: 'claude-sonnet-4-5',
    status: 200,
    streamed: n % 2 === 0,
    startedAt: new Date(Date.UTC(2025, 0, 2, 0, 0, n)).toISOString(),
    prefixHash: hashText(`prefix ${n}`),
    parts: [
      { section: 'tool:Read', kind: 'tool', hash: hashText('t'), keyedHash: `hmac-sha256:${'a'.repeat(64)}` },
      {
        section: 'system:1',
        kind: 'system',
        hash: hashText('s'),
        keyedHash: `hmac-sha256:${'b'.repeat(64)}`,
      },
    ],
    marks: [{ at: 'system:1', ttl: '5m' }],
    messageHashes: Array.from({ length: n % 4 }, (_, i) => hashText(`message ${i}`)),
  }
  if (minimal) return base
  return {
    ...base,
    harnessVersion: '2.1.200',
    firstByteAt: new Date(Date.UTC(2025, 0, 2, 0, 0, n, 300)).toISOString(),
    endedAt: new Date(Date.UTC(2025, 0, 2, 0, 0, n, 900)).toISOString(),
    promptCacheKey: `key ${AWKWARD}`,
    usage: { inputTokens: 5000 + n, cacheReadTokens: 4000, cacheWriteTokens: n, outputTokens: 12 },
    diagnostics: { cache_miss_reason: AWKWARD, nested: [1, 2.5, null, true, { deep: 'x' }] },
    partial: n % 3 === 0,
  }
}

/** Bounded: enough to show a cost that grew with the calls before it, small enough for every driver. */
const MANY_CALLS = 1000

/**
 * The recording cases of the `PromptStore` conformance suite (SPEC §11):
 * recordings as their own kind of session, calls numbered by the store,
 * versions found by prefix hash, deletion and pruning.
 */
export function describeRecordingConformance(
  fresh: () => Promise<PromptStore>,
  handles: () => Promise<PromptStore[]>,
  concurrency: number,
  processes: { open: (first: PromptStore) => ChildOpen } | { skip: string },
): void {
  /** A store holding recording `rec` at version 1. */
  const recording = async (id = 'rec', store?: PromptStore): Promise<PromptStore> => {
    const s = store ?? (await fresh())
    await s.createSession(id, recordedVersion(1, 'p1'), { kind: 'recording' })
    return s
  }

  describe('recordings', () => {
    it('marks a recording as one, and a prompt session as none; a second create keeps the first kind', async () => {
      const store = await fresh()
      const v1 = recordedVersion(1, 'p1')
      expect(await store.createSession('rec', v1, { kind: 'recording' })).toEqual({
        id: 'rec',
        current: v1,
        versions: 1,
        kind: 'recording',
      })
      expect((await store.getSession('rec'))?.kind).toBe('recording')
      expect((await store.createSession('rec', versionFixture(1, ['other'])))?.kind).toBe('recording')
      await store.createSession('prompt', versionFixture(1, ['p']))
      expect(await store.getSession('prompt')).not.toHaveProperty('kind')
      expect(
        await store.createSession('prompt', versionFixture(1, ['p']), { kind: 'recording' }),
      ).not.toHaveProperty('kind')
    })

    it('numbers calls from 1 and reads them back deep-equal, in order, with absent fields absent', async () => {
      const store = await recording()
      const sent = [callFixture('rec', 1), callFixture('rec', 2, true), callFixture('rec', 3)]
      const returned: CallRecord[] = []
      for (const call of sent) returned.push(await store.recordCall(call))
      const expected = sent.map((call, i) => ({ ...call, call: i + 1 }))
      expect(returned).toStrictEqual(expected)
      expect(await store.calls('rec')).toStrictEqual(expected)
    })

    it('reads a range of calls, both ends included; an unknown session has none', async () => {
      const store = await recording()
      for (let n = 1; n <= 6; n++) await store.recordCall(callFixture('rec', n))
      expect((await store.calls('rec', { from: 2, to: 4 })).map((c) => c.call)).toEqual([2, 3, 4])
      expect((await store.calls('rec', { from: 5 })).map((c) => c.call)).toEqual([5, 6])
      expect((await store.calls('rec', { to: 1 })).map((c) => c.call)).toEqual([1])
      expect(await store.calls('nope')).toEqual([])
    })

    it('refuses a call to an unknown session (not-found) or a prompt session (invalid), storing nothing', async () => {
      const store = await fresh()
      await expect(store.recordCall(callFixture('ghost', 1))).rejects.toMatchObject({ code: 'not-found' })
      await store.createSession('prompt', versionFixture(1, ['p']))
      const refused = store.recordCall(callFixture('prompt', 1))
      await expect(refused).rejects.toBeInstanceOf(StoreError)
      await expect(refused).rejects.toMatchObject({
        code: 'invalid',
        message: expect.stringMatching(/recording/),
      })
      expect(await store.calls('prompt')).toEqual([])
      expect(await store.calls('ghost')).toEqual([])
    })

    it('refuses a call whose start is not a time', async () => {
      const store = await recording()
      await expect(
        store.recordCall({ ...callFixture('rec', 1), startedAt: 'yesterday' }),
      ).rejects.toMatchObject({
        code: 'invalid',
      })
      expect(await store.calls('rec')).toEqual([])
    })

    it('gives concurrent calls from several handles distinct numbers 1..n, losing none', async () => {
      const stores = await handles()
      await recording('rec', stores[0])
      const returned = await Promise.all(
        Array.from({ length: concurrency }, (_, n) =>
          stores[n % stores.length]!.recordCall(callFixture('rec', n)),
        ),
      )
      const numbers = returned.map((c) => c.call).sort((a, b) => a - b)
      expect(numbers).toEqual(Array.from({ length: concurrency }, (_, i) => i + 1))
      for (const store of stores) {
        const read = await store.calls('rec')
        expect(read.map((c) => c.call)).toEqual(numbers)
        for (const call of read) expect(call).toStrictEqual(returned.find((r) => r.call === call.call))
      }
    })

    it(`appends ${MANY_CALLS} calls, each numbered next, the last one read alone`, async () => {
      const store = await recording()
      let last: CallRecord | undefined
      for (let n = 1; n <= MANY_CALLS; n++) last = await store.recordCall(callFixture('rec', n % 50, true))
      expect(last?.call).toBe(MANY_CALLS)
      expect(await store.calls('rec', { from: MANY_CALLS })).toStrictEqual([last])
      expect((await store.calls('rec')).map((c) => c.call)).toEqual(
        Array.from({ length: MANY_CALLS }, (_, i) => i + 1),
      )
    })

    it('finds a version by its prefix hash, the first one when a prefix comes back, and keeps the hash', async () => {
      const store = await recording()
      const versions: SessionVersion[] = [recordedVersion(1, 'p1')]
      for (const [n, prefix] of [
        [2, 'p2'],
        [3, 'p1'],
      ] as const) {
        const next = recordedVersion(n, prefix, [`${prefix} again ${n}`])
        await store.appendVersion('rec', next, versions[versions.length - 1]!.hash)
        versions.push(next)
      }
      expect(await store.findVersionByPrefix('rec', hashText('p1'))).toBe(1)
      expect(await store.findVersionByPrefix('rec', hashText('p2'))).toBe(2)
      expect(await store.findVersionByPrefix('rec', hashText('never'))).toBeUndefined()
      expect(await store.findVersionByPrefix('nope', hashText('p1'))).toBeUndefined()
      expect(await store.history('rec')).toEqual(versions)
      expect((await store.getSession('rec'))?.current.prefixHash).toBe(hashText('p1'))
    })

    it('deletes a session with its versions, usage and calls, and nothing of another', async () => {
      const store = await recording()
      await recording('other', store)
      for (const id of ['rec', 'other']) {
        await store.recordCall(callFixture(id, 1))
        await store.recordUsage(id, outcomeFixture(1, 1))
      }
      expect(await store.deleteSession('rec')).toBe(true)
      expect(await store.getSession('rec')).toBeUndefined()
      expect(await store.history('rec')).toEqual([])
      expect(await store.usage('rec')).toEqual([])
      expect(await store.calls('rec')).toEqual([])
      expect(await store.findVersionByPrefix('rec', hashText('p1'))).toBeUndefined()
      expect(await store.deleteSession('rec')).toBe(false)
      expect(await store.calls('other')).toHaveLength(1)
      expect(await store.usage('other')).toHaveLength(1)
      expect((await store.getSession('other'))?.current).toEqual(recordedVersion(1, 'p1'))
      // The id is free again: a new recording numbers its calls from 1.
      await recording('rec', store)
      expect((await store.recordCall(callFixture('rec', 2))).call).toBe(1)
    })

    it('deletes a prompt session too', async () => {
      const store = await fresh()
      await store.createSession('s', versionFixture(1, ['x']))
      expect(await store.deleteSession('s')).toBe(true)
      expect(await store.getSession('s')).toBeUndefined()
    })

    it('prunes calls started before a time, and the recordings left without a call', async () => {
      const store = await recording('old')
      await recording('mixed', store)
      await store.createSession('prompt', versionFixture(1, ['p']))
      for (const n of [1, 2]) await store.recordCall(callFixture('old', n))
      for (const n of [3, 30]) await store.recordCall(callFixture('mixed', n))
      const cut = new Date(Date.UTC(2025, 0, 2, 0, 0, 10))
      expect(await store.pruneCalls(cut)).toEqual({ calls: 3, sessions: 1 })
      expect(await store.getSession('old')).toBeUndefined()
      expect(await store.calls('old')).toEqual([])
      expect((await store.calls('mixed')).map((c) => c.call)).toEqual([2])
      expect(await store.getSession('prompt')).toBeDefined()
      // Numbers go on after a prune: a number once given is never given again.
      expect((await store.recordCall(callFixture('mixed', 40))).call).toBe(3)
      expect(await store.pruneCalls(cut)).toEqual({ calls: 0, sessions: 0 })
    })

    it('never lets a mutated call change what is stored', async () => {
      const store = await recording()
      const call = callFixture('rec', 1)
      const pristine = structuredClone(call)
      const returned = await store.recordCall(call)
      call.parts[0]!.hash = 'mutated input'
      returned.marks.push({ at: 'message:9', ttl: '1h' })
      const [read] = await store.calls('rec')
      read!.messageHashes.push('mutated output')
      expect(await store.calls('rec')).toStrictEqual([{ ...pristine, call: 1 }])
    })

    const spawnable = 'open' in processes ? processes : undefined
    const suffix = 'skip' in processes ? ` (skipped: ${processes.skip})` : ''
    ;(spawnable === undefined ? it.skip : it)(
      `numbers calls recorded by several OS processes at once, each number once${suffix}`,
      async () => {
        const store = await recording()
        const perProcess = 10
        const results = await runStoreChildren(spawnable!.open(store), 3, (index) => ({
          task: 'record',
          id: 'rec',
          index,
          count: perProcess,
        }))
        const numbers = results.flatMap((r) => r.numbers as number[]).sort((a, b) => a - b)
        expect(numbers).toEqual(Array.from({ length: 3 * perProcess }, (_, i) => i + 1))
        expect((await store.calls('rec')).map((c) => c.call)).toEqual(numbers)
      },
      300_000,
    )

    it('rejects recording calls after close with a StoreError coded closed', async () => {
      const store = await recording()
      await store.close!()
      await expect(store.recordCall(callFixture('rec', 1))).rejects.toMatchObject({ code: 'closed' })
      await expect(store.calls('rec')).rejects.toMatchObject({ code: 'closed' })
      await expect(store.deleteSession('rec')).rejects.toMatchObject({ code: 'closed' })
    })
  })
}
