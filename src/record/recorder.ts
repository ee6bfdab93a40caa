import { randomBytes } from 'node:crypto'
import { cacheMinimum } from '../compile/cache-minimums.js'
import type { CallRecord, RecordedUsage } from '../compile/call-record.js'
import { warmth } from '../compile/colder.js'
import type { PromptStore } from '../compile/types.js'
import { classifyUsage } from '../compile/usage.js'
import { LruCache } from '../shared/lru-cache.js'
import { parseRequest, parseResponse, prefixHash, toRecordedPart } from './parse/index.js'
import type { ParsedRequest } from './parse/types.js'
import { prefixPrompt, prefixVersion } from './prefix-version.js'
import type { HttpExchange, RelayEvent } from './relay/events.js'
import { joinThread, type Thread } from './threads.js'
import { createWsTurns } from './ws-turns.js'

export interface RecorderOptions {
  store: PromptStore
  /** The harness recorded (`claude`, `codex`, …; `unknown` with `--listen`), in session names and calls. */
  harness: string
  /** The harness's version when its requests do not say (its user agent): `COMMAND --version`, asked once. */
  harnessVersion?: () => Promise<string | undefined>
  /** The per-user secret of the keyed hashes. */
  key: Uint8Array | string
  /** The secret rules applied to every text before it is stored. */
  mask: (text: string) => string | Promise<string>
  /** Counts tokens of a part's text (an estimate: only the provider's usage is exact), by `tokenizer`. */
  count: (text: string) => number
  tokenizer: string
  now?: () => Date
  /** Six hex digits for a session name. */
  random?: () => string
  onWarning?: (message: string) => void
  /**
   * Called at a conversation's first request, and again when a new harness
   * version appears in it, with what the drift check compares: the texts of
   * the prefix as sent (before masking; never stored) and the working
   * directory the harness stated.
   */
  drift?: (input: DriftRequest) => Promise<void>
  /** `--keep-bodies`: keeps each later message (the user's own prompt included), masked, by its hash. */
  keepBody?: (hash: string, text: string) => Promise<void>
}

/** What the drift check of one conversation gets. */
export interface DriftRequest {
  conversation: string
  version?: string
  workingDirectory?: string
  sent: string[]
}

/** A call that read less from cache than its thread's previous call made reusable. */
export interface ColderCall {
  session: string
  call: number
  read: number
  reusable: number
  lost: number
}

/** What a recording run saw, for the summary at exit. */
export interface RecordSummary {
  /** Model requests on recorded endpoints. */
  requests: number
  /** Of those, stored as calls. */
  recorded: number
  cacheRead: number
  cacheWrite: number
  /** Input tokens neither read from nor written to the cache. */
  uncached: number
  colder: ColderCall[]
  /** The ledger sessions written, one per thread, in the order they started. */
  sessions: string[]
}

export interface Recorder {
  /** Records one relay event; the relay calls it one event at a time, in order. */
  handle(event: RelayEvent): Promise<void>
  summary(): RecordSummary
}

/** How many distinct parts' masked texts are kept (a harness's tools and system blocks, across its threads). */
const MASKED_PARTS = 4096

/** A harness's version from its user agent (`claude-cli/2.1.332`, `codex_exec/0.171.0`, `GeminiCLI/0.61.0`, …). */
export function versionFromUserAgent(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined) return undefined
  const found =
    /(?:claude-cli|codex[\w-]*|GeminiCLI(?:-[\w]+)?|opencode|pi(?:-coding-agent)?)\/v?(\d+\.\d+\.\d+(?:-[\w.]+)?)/i.exec(
      userAgent,
    )
  return found?.[1]
}

/** `yyyymmddThhmmssZ`. */
function stamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
}

/**
 * Turns the relay's events into the store's recordings (issue 33): each
 * request of a recorded endpoint is parsed, joins a thread of its
 * conversation (a ledger session `rec-<harness>-<stamp>-<hex>` whose
 * versions are its distinct prefixes, reused by prefix hash), and is
 * stored as a call with its parts' hashes (as sent, and keyed before
 * masking), marks and usage; texts are masked before they are stored and
 * the user's own prompt never is.
 */
export function createRecorder(options: RecorderOptions): Recorder {
  const now = options.now ?? (() => new Date())
  const random = options.random ?? (() => randomBytes(3).toString('hex'))
  const conversations = new Map<string, Thread[]>()
  const warned = new Set<string>()
  // A harness sends the same tools and system blocks with every request: each distinct part is masked once.
  const maskedParts = new LruCache<string, string>(MASKED_PARTS)
  const maskPart = async (part: { hash: string; text: string }): Promise<string> => {
    const known = maskedParts.get(part.hash)
    if (known !== undefined) return known
    const masked = await options.mask(part.text)
    maskedParts.set(part.hash, masked)
    return masked
  }
  // …and counted once: the same masked text comes back from the cache above as the same string.
  const counted = new LruCache<string, number>(MASKED_PARTS)
  const countPart = (text: string): number => {
    const known = counted.get(text)
    if (known !== undefined) return known
    const tokens = options.count(text)
    counted.set(text, tokens)
    return tokens
  }
  /** Per conversation, the harness versions its drift was checked for. */
  const checked = new Map<string, Set<string>>()
  const summary: RecordSummary = {
    requests: 0,
    recorded: 0,
    cacheRead: 0,
    cacheWrite: 0,
    uncached: 0,
    colder: [],
    sessions: [],
  }
  let askedVersion: Promise<string | undefined> | undefined
  const wsTurns = createWsTurns()

  const warn = (message: string): void => {
    if (warned.has(message)) return
    warned.add(message)
    options.onWarning?.(message)
  }

  async function versionOf(event: HttpExchange): Promise<string | undefined> {
    const fromAgent = versionFromUserAgent(event.requestHeaders['user-agent'])
    if (fromAgent !== undefined) return fromAgent
    askedVersion ??= options.harnessVersion?.() ?? Promise.resolve(undefined)
    return askedVersion
  }

  /**
   * The thread the request joins, a new one (and its session) when none fits; the version its prefix is.
   * A `partial` request (a WebSocket chain joined midway) makes no version: it takes its thread's
   * current one and leaves the thread's latest prefix as it was (its own prefix is not the whole one).
   */
  async function place(
    request: ParsedRequest,
    partial: boolean,
  ): Promise<{ thread: Thread; version: number; tokens: number }> {
    const threads = conversations.get(request.conversation) ?? []
    conversations.set(request.conversation, threads)
    const keys = request.parts.map((p) => ({ kind: p.kind, hash: p.hash }))
    const thread = joinThread(threads, keys)
    const prefix = prefixHash(request.parts)
    const masked = await Promise.all(
      request.parts.map(async (p) => ({ section: p.section, text: await maskPart(p) })),
    )
    const compiled = prefixPrompt(masked, countPart, options.tokenizer)
    const tokens = compiled.tokens
    if (partial && thread !== undefined) return { thread, version: thread.version, tokens }
    const at = now()
    if (thread === undefined) {
      const session = `rec-${options.harness}-${stamp(at)}-${random()}`
      const record = await options.store.createSession(
        session,
        // A chain joined midway with no thread yet still needs a session: its first version is what it sent.
        prefixVersion(
          compiled,
          1,
          prefix,
          at,
          partial ? 'recorded (partial: a WebSocket chain joined midway)' : 'recorded',
        ),
        {
          kind: 'recording',
        },
      )
      const made: Thread = { session, latest: keys, version: 1, versionHash: record.current.hash }
      threads.push(made)
      summary.sessions.push(session)
      return { thread: made, version: 1, tokens }
    }
    const same =
      thread.latest.length === keys.length && thread.latest.every((k, i) => k.hash === keys[i]!.hash)
    if (same) return { thread, version: thread.version, tokens }
    const seen = await options.store.findVersionByPrefix(thread.session, prefix)
    const changed = firstChange(thread.latest, keys, request)
    thread.latest = keys
    if (seen !== undefined) return { thread, version: seen, tokens }
    const next = prefixVersion(compiled, thread.version + 1, prefix, at, changed)
    const record = await options.store.appendVersion(thread.session, next, thread.versionHash)
    thread.version = record.current.version
    thread.versionHash = record.current.hash
    return { thread, version: thread.version, tokens }
  }

  /** Records an HTTP exchange, or a WebSocket turn rebuilt as one (`partial`: a chain joined midway). */
  async function handleHttp(event: HttpExchange, partial = false): Promise<void> {
    if (event.endpoint === undefined) return
    // count_tokens answers feed calibration (the `why` issue), not the threads of a conversation.
    if (event.endpoint === 'anthropic.count_tokens') return
    summary.requests++
    const body = event.requestBody
    if (body?.state !== 'complete' || body.bytes === undefined) {
      warn(
        `a ${event.endpoint} request body could not be read (${body?.state ?? 'absent'}); it was not recorded`,
      )
      return
    }
    const request = parseRequest(event.endpoint, body.bytes, event.requestHeaders, { path: event.path })
    if (!request.ok) {
      warn(`a ${event.endpoint} request was not recorded: ${request.reason}`)
      return
    }
    const answer =
      event.responseBody?.state === 'complete' && event.responseBody.bytes !== undefined
        ? parseResponse(event.endpoint, event.responseBody.bytes, { streamed: event.streamed })
        : undefined
    const response = answer?.ok === true ? answer : undefined
    const { thread, version, tokens } = await place(request, partial)
    const harnessVersion = await versionOf(event)
    await driftOnce(request, harnessVersion)
    const call: Omit<CallRecord, 'call'> = {
      session: thread.session,
      version,
      conversation: request.conversation,
      harness: options.harness,
      ...(harnessVersion !== undefined && { harnessVersion }),
      provider: event.provider,
      endpoint: event.endpoint,
      model: request.model,
      status: event.status,
      streamed: event.streamed,
      startedAt: new Date(event.startedAt).toISOString(),
      ...(event.firstByteAt !== undefined && { firstByteAt: new Date(event.firstByteAt).toISOString() }),
      endedAt: new Date(event.endedAt).toISOString(),
      prefixHash: prefixHash(request.parts),
      parts: request.parts.map((p) => toRecordedPart(p, options.key)),
      marks: request.marks,
      ...(request.promptCacheKey !== undefined && { promptCacheKey: request.promptCacheKey }),
      messageHashes: request.messageHashes,
      ...(response?.usage !== undefined && { usage: response.usage }),
      ...(response?.diagnostics !== undefined && { diagnostics: response.diagnostics }),
      ...(partial && { partial: true }),
    }
    const stored = await options.store.recordCall(call)
    if (options.keepBody !== undefined)
      for (const [i, hash] of request.messageHashes.entries())
        await options.keepBody(hash, await options.mask(request.messageBodies[i] ?? ''))
    summary.recorded++
    if (response?.usage !== undefined) await count(thread, stored, response.usage, tokens, partial)
  }

  async function driftOnce(request: ParsedRequest, harnessVersion: string | undefined): Promise<void> {
    if (options.drift === undefined) return
    const seen = checked.get(request.conversation) ?? new Set<string>()
    checked.set(request.conversation, seen)
    const key = harnessVersion ?? ''
    if (seen.has(key)) return
    seen.add(key)
    await options.drift({
      conversation: request.conversation,
      ...(harnessVersion !== undefined && { version: harnessVersion }),
      ...(request.workingDirectory !== undefined && { workingDirectory: request.workingDirectory }),
      sent: request.parts.map((p) => p.text),
    })
  }

  /**
   * Adds a call's usage to the summary and stores its outcome beside the
   * call (`sessions usage` reads it): classified against the prefix's
   * estimated tokens (none cacheable below the model's minimum), with the
   * colder-call engine's one-line `why`.
   */
  async function count(
    thread: Thread,
    call: CallRecord,
    usage: RecordedUsage,
    prefixTokens: number,
    partial: boolean,
  ): Promise<void> {
    summary.cacheRead += usage.cacheReadTokens
    summary.cacheWrite += usage.cacheWriteTokens
    summary.uncached += Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens)
    let why: string | undefined
    // A partial call (a WebSocket chain joined midway) is neither judged colder nor a baseline: its prefix is not known whole.
    if (!partial && thread.previous !== undefined) {
      const w = warmth(call.provider, thread.previous.usage, usage)
      if (w.colder) {
        summary.colder.push({
          session: thread.session,
          call: call.call,
          read: w.read,
          reusable: w.reusable,
          lost: w.lost,
        })
        why = `call ${call.call} read ${w.read} of the ${w.reusable} tokens call ${thread.previous.call} made reusable`
      }
    }
    if (!partial) thread.previous = { call: call.call, usage }
    const minimum = cacheMinimum(call.provider, call.model).minTokens
    const normalised = {
      inputTokens: usage.inputTokens,
      cachedTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
    }
    await options.store.recordUsage(thread.session, {
      version: call.version,
      at: call.endedAt ?? call.startedAt,
      provider: call.provider,
      model: call.model,
      ...normalised,
      outcome: classifyUsage(normalised, prefixTokens >= minimum ? prefixTokens : 0),
      ...(why !== undefined && { why }),
    })
  }

  return {
    async handle(event) {
      if (event.kind === 'http') return handleHttp(event)
      if (event.kind === 'ws-open') return wsTurns.open(event)
      // WebSocket turns are rebuilt into the exchanges an HTTP request would have made (ws-turns.ts).
      const finished = event.kind === 'ws' ? wsTurns.frame(event) : wsTurns.close(event)
      for (const turn of finished) await handleHttp(turn.exchange, turn.partial)
    },
    summary: () => ({ ...summary, colder: [...summary.colder], sessions: [...summary.sessions] }),
  }
}

/** Why a thread's prefix became a new version, in words: the first part that changed. */
function firstChange(
  before: readonly { hash: string }[],
  after: readonly { hash: string }[],
  request: ParsedRequest,
): string {
  let i = 0
  while (i < before.length && i < after.length && before[i]!.hash === after[i]!.hash) i++
  const part = request.parts[i]
  return part === undefined ? 'parts removed at the end' : `${part.section} changed`
}
