import { LruCache } from '../shared/lru-cache.js'
import { diffCompiled } from './diff.js'
import { memoryStore } from './memory-store.js'
import { StoreConflictError, StoreError } from './store-errors.js'
import type {
  CompiledPrompt,
  PromptDiff,
  PromptStore,
  SessionRecord,
  SessionVersion,
  UsageOutcome,
} from './types.js'
import { explainColder, outcomeOf, type RecordUsageOptions } from './usage.js'

/** The reason recorded on a session's first version. */
export const CONSTRUCT_REASON = 'construct'

/**
 * Well-known reasons to recompile a session prompt (SPEC §5): the explicit,
 * logged events after which a harness rebuilds the prompt (seed 003). Any
 * other string is accepted too. `compaction` is the cheap moment to refresh
 * stale values: the conversation was compacted, so the provider cache is cold
 * anyway.
 */
export const SESSION_REASONS = [
  'model-change',
  'autonomy-change',
  'fragment-reload',
  'session-switch',
  'template-change',
  'compaction',
] as const

/** A recompile reason: a well-known one or any other string. */
// `string & {}` keeps editor completion for the well-known values.
export type SessionReason = (typeof SESSION_REASONS)[number] | typeof CONSTRUCT_REASON | (string & {})

export interface SessionPromptsOptions<Ctx> {
  /** Builds the prompt of a session from its context, typically `assemble` then `compile`. */
  build: (ctx: Ctx) => Promise<CompiledPrompt>
  /** Where versions persist; defaults to a fresh `memoryStore()`. */
  store?: PromptStore
  /** Stamps each version's `at`; defaults to the system clock. */
  clock?: () => Date
  /** How many sessions' current versions `get` keeps in memory; defaults to 128. */
  cacheSize?: number
}

/** What `recompile` did: the current prompt, whether it changed, and how. */
export interface RecompileResult {
  /** The session's current prompt: the stored one, byte-identical, when unchanged. */
  compiled: CompiledPrompt
  changed: boolean
  /** What moved, for prompt-cache analysis; present when an existing prompt was replaced. */
  diff?: PromptDiff
}

/** The session prompt service (SPEC §5); see `createSessionPrompts`. */
export interface SessionPrompts<Ctx> {
  construct(id: string, ctx: Ctx): Promise<CompiledPrompt>
  get(id: string): Promise<CompiledPrompt | undefined>
  recompile(id: string, ctx: Ctx, reason: SessionReason): Promise<RecompileResult>
  history(id: string): Promise<SessionVersion[]>
  /**
   * Records one provider call's usage report (as the SDK returned it) against
   * the version it sent, classified `hot`/`partial`/`cold`/`small`, with
   * `why` when it was colder than the session's previous call (SPEC §8).
   */
  recordUsage(id: string, usage: unknown, options: RecordUsageOptions): Promise<UsageOutcome>
  /** The session's recorded usage outcomes, oldest first. */
  usage(id: string): Promise<UsageOutcome[]>
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/**
 * Session prompts with the seed-003 lifecycle (SPEC §5): a session's prompt is
 * built once, persisted, and from then on served byte-identical (so provider
 * prompt caches keep hitting) until an explicit, logged `recompile`.
 *
 * - `construct(id, ctx)` returns the stored prompt if there is one, even when
 *   `build` would now give other bytes; otherwise it builds and persists
 *   version 1 (reason `construct`). Concurrent calls for one id in this
 *   process share one build; across processes the store's first writer wins,
 *   and every caller gets the winner's prompt.
 * - `get(id)` reads through an in-memory cache of current versions (filled
 *   from the store on a miss). It can lag a version another process appended
 *   until this process recompiles that session.
 * - `recompile(id, ctx, reason)` builds and appends a version only when the
 *   hash changed, compare-and-set on the previous hash; on a conflict it
 *   re-reads and retries once, then throws the `StoreConflictError`. For an
 *   unknown id it constructs the session (reason `construct`) and reports
 *   `changed: true` without a diff.
 * - `history(id)` lists the stored versions, oldest first.
 *
 * Operations on one id run one after another within the process, so they
 * never conflict with each other. Prompts handed out are deep-frozen shared
 * copies: mutating one throws instead of corrupting the cache. Errors of
 * `build` propagate unchanged; store failures arrive as `StoreError`.
 */
export function createSessionPrompts<Ctx>(options: SessionPromptsOptions<Ctx>): SessionPrompts<Ctx> {
  const { build } = options
  const store = options.store ?? memoryStore()
  const clock = options.clock ?? (() => new Date())
  const cache = new LruCache<string, SessionVersion>(options.cacheSize ?? 128)
  const queues = new Map<string, Promise<unknown>>()
  const constructing = new Map<string, Promise<CompiledPrompt>>()

  /** Runs `task` after every earlier task on `id` settled. */
  const serialise = <T>(id: string, task: () => Promise<T>): Promise<T> => {
    const previous = queues.get(id) ?? Promise.resolve()
    const run = previous.then(task, task)
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    queues.set(id, tail)
    void tail.then(() => {
      if (queues.get(id) === tail) queues.delete(id)
    })
    return run
  }

  /** Calls the store, turning a driver's own failure into a `StoreError` that names the session. */
  const call = async <T>(operation: string, id: string, action: () => Promise<T>): Promise<T> => {
    try {
      return await action()
    } catch (error) {
      if (error instanceof StoreError) throw error
      const message = error instanceof Error ? error.message : String(error)
      throw new StoreError({
        code: 'failed',
        operation,
        subject: { kind: 'session', id },
        detail: `the store failed (${message}); check that it is reachable and writable, then retry`,
        cause: error,
      })
    }
  }

  const remember = (id: string, record: SessionRecord): SessionVersion => {
    const current = deepFreeze(record.current)
    cache.set(id, current)
    return current
  }

  const readCurrent = async (id: string): Promise<SessionVersion | undefined> => {
    const record = await call('getSession', id, () => store.getSession(id))
    return record === undefined ? undefined : remember(id, record)
  }

  const versionOf = (version: number, compiled: CompiledPrompt, reason: string): SessionVersion => ({
    version,
    hash: compiled.hash,
    tokens: compiled.tokens,
    reason,
    at: clock().toISOString(),
    compiled,
  })

  /** Persists `compiled` as version 1 unless another writer won; returns the winner. */
  const create = async (id: string, compiled: CompiledPrompt): Promise<SessionVersion> => {
    const record = await call('createSession', id, () =>
      store.createSession(id, versionOf(1, compiled, CONSTRUCT_REASON)),
    )
    return remember(id, record)
  }

  const constructLocked = async (id: string, ctx: Ctx): Promise<CompiledPrompt> => {
    const known = cache.get(id) ?? (await readCurrent(id))
    if (known !== undefined) return known.compiled
    return (await create(id, await build(ctx))).compiled
  }

  const recompileLocked = async (id: string, ctx: Ctx, reason: string): Promise<RecompileResult> => {
    // Read the store, not the cache: another process may have appended since,
    // and recompiles are rare enough that one read each costs nothing.
    let previous = await readCurrent(id)
    const compiled = await build(ctx)
    if (previous === undefined) {
      const winner = await create(id, compiled)
      // Another process may have created the session meanwhile with other
      // bytes: then ours replaces it like any recompile would.
      if (winner.hash === compiled.hash) return { compiled: winner.compiled, changed: true }
      previous = winner
    }
    for (let attempt = 0; ; attempt++) {
      if (previous.hash === compiled.hash) return { compiled: previous.compiled, changed: false }
      const base: SessionVersion = previous
      try {
        const record = await call('appendVersion', id, () =>
          store.appendVersion(id, versionOf(base.version + 1, compiled, reason), base.hash),
        )
        const current = remember(id, record)
        return {
          compiled: current.compiled,
          changed: true,
          diff: diffCompiled(base.compiled, current.compiled),
        }
      } catch (error) {
        if (!(error instanceof StoreConflictError) || attempt > 0) throw error
        const reread = await readCurrent(id)
        if (reread === undefined) throw error
        previous = reread
      }
    }
  }

  /** The version with `hash` (the current one by default), and the whole history when it had to be read. */
  const versionFor = async (id: string, hash: string | undefined) => {
    const current = await readCurrent(id)
    if (current === undefined) {
      throw new StoreError({
        code: 'not-found',
        operation: 'recordUsage',
        subject: { kind: 'session', id },
        detail: 'no such session; construct it before recording its usage',
      })
    }
    if (hash === undefined || hash === current.hash) return current
    const history = await call('history', id, () => store.history(id))
    const used = [...history].reverse().find((v) => v.hash === hash)
    if (used === undefined) {
      throw new StoreError({
        code: 'invalid',
        operation: 'recordUsage',
        subject: { kind: 'session', id },
        detail: `no version of this session has hash ${hash}; pass the hash of a prompt the session sent`,
      })
    }
    return used
  }

  const recordUsageLocked = async (
    id: string,
    usage: unknown,
    usageOptions: RecordUsageOptions,
  ): Promise<UsageOutcome> => {
    const used = await versionFor(id, usageOptions.hash)
    const outcome = outcomeOf(usage, used.compiled, {
      version: used.version,
      at: clock().toISOString(),
      provider: usageOptions.provider,
      model: usageOptions.model,
    })
    const earlier = await call('usage', id, () => store.usage(id))
    const previous = earlier[earlier.length - 1]
    if (previous !== undefined) {
      const previousCompiled =
        previous.version === used.version
          ? used.compiled
          : (await call('history', id, () => store.history(id))).find((v) => v.version === previous.version)
              ?.compiled
      const why =
        previousCompiled === undefined
          ? undefined
          : explainColder(
              { outcome: previous, compiled: previousCompiled },
              {
                outcome,
                compiled: used.compiled,
                reason: used.reason,
                ...(usageOptions.ttl ? { ttl: usageOptions.ttl } : {}),
              },
            )
      if (why !== undefined) outcome.why = why
    }
    await call('recordUsage', id, () => store.recordUsage(id, outcome))
    return outcome
  }

  return {
    construct(id, ctx) {
      const cached = cache.get(id)
      if (cached !== undefined) return Promise.resolve(cached.compiled)
      const inFlight = constructing.get(id)
      if (inFlight !== undefined) return inFlight
      const started = serialise(id, () => constructLocked(id, ctx))
      constructing.set(id, started)
      const forget = () => {
        if (constructing.get(id) === started) constructing.delete(id)
      }
      started.then(forget, forget)
      return started
    },

    get(id) {
      // The cached path makes no async frame: `get` runs once per turn.
      const cached = cache.get(id)
      if (cached !== undefined) return Promise.resolve(cached.compiled)
      return readCurrent(id).then((current) => current?.compiled)
    },

    recompile(id, ctx, reason) {
      return serialise(id, () => recompileLocked(id, ctx, reason))
    },

    history(id) {
      return call('history', id, () => store.history(id))
    },

    recordUsage(id, usage, usageOptions) {
      return serialise(id, () => recordUsageLocked(id, usage, usageOptions))
    },

    usage(id) {
      return call('usage', id, () => store.usage(id))
    },
  }
}
