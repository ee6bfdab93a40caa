import { randomBytes } from 'node:crypto'
import * as fsp from 'node:fs/promises'
import { hostname } from 'node:os'
import { resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { nodeAdapters } from './adapters.js'
import { readConfinedFile } from './safe-read.js'
import { SafeWriteError, writeFileSafely } from './safe-write.js'

/** A lock older than this (by the time written in it) is stale whoever holds it: holders keep a lock for one write. */
export const LOCK_STALE_MS = 30_000
/** How long {@link withFileLock} waits for a live lock before giving up with `busy`. */
export const LOCK_WAIT_MS = 10_000
/** A lock file over this many bytes is not one of ours. */
const MAX_LOCK_BYTES = 1024

/**
 * What a lock file holds, one line of JSON: the process that holds it (its
 * pid and host name), when it was taken (ISO 8601), and a random nonce that
 * tells this lock from any later one at the same path.
 */
export interface LockInfo {
  pid: number
  host: string
  at: string
  nonce: string
}

export interface FileLockOptions {
  /** A directory above the lock file: the lock is created and read only inside it (see `writeFileSafely`). */
  root: string
  /** Defaults to {@link LOCK_STALE_MS}. */
  staleMs?: number
  /** Defaults to {@link LOCK_WAIT_MS}. */
  waitMs?: number
  /** Milliseconds since the epoch; injected by tests. */
  now?: () => number
  /** Whether a process of this host is alive; injected by tests. */
  isAlive?: (pid: number) => boolean
}

/** Why a lock could not be taken: `busy` (a live lock held past the wait), `not-a-file` (something else at the path). */
export type FileLockCode = 'busy' | 'not-a-file'

/** A lock that could not be taken; `holder` is the live lock's content when `busy`. */
export class FileLockError extends Error {
  override readonly name = 'FileLockError'

  constructor(
    readonly code: FileLockCode,
    readonly path: string,
    message: string,
    readonly holder?: LockInfo,
  ) {
    super(message)
  }
}

/** Whether process `pid` of this host is alive: `kill(pid, 0)` reaches it, or it exists and belongs to another user. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The lock in `text`, or `undefined` when it is not a lock this module wrote (garbage, a hand-made file). */
export function parseLock(text: string): LockInfo | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { pid, host, at, nonce } = value as Record<string, unknown>
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined
  if (typeof host !== 'string' || typeof at !== 'string' || typeof nonce !== 'string') return undefined
  if (nonce.length === 0 || !Number.isFinite(Date.parse(at))) return undefined
  return { pid, host, at, nonce }
}

/**
 * Whether `lock` may be taken over: written more than `staleMs` ago (or
 * more than `staleMs` in the future: a forged or skewed clock), or held by
 * a process of this host that is gone. A lock of another host is judged
 * by its age alone.
 */
export function isStale(
  lock: LockInfo,
  options: { now: number; staleMs: number; host: string; isAlive: (pid: number) => boolean },
): boolean {
  const age = options.now - Date.parse(lock.at)
  if (age > options.staleMs || age < -options.staleMs) return true
  return lock.host === options.host && !options.isAlive(lock.pid)
}

/** What is at the lock path: nothing, a lock (its exact text, to recognise it later), or something that is no lock. */
type Found =
  | { kind: 'none' }
  | { kind: 'lock'; text: string; info: LockInfo }
  | { kind: 'garbage'; text: string }

async function examine(path: string, root: string): Promise<Found> {
  let stat: Awaited<ReturnType<typeof fsp.lstat>>
  try {
    stat = await fsp.lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' }
    throw error
  }
  // Locks are regular files, created by link(2): a symbolic link here is no lock (and is never followed).
  if (stat.isSymbolicLink())
    return { kind: 'garbage', text: `link:${await fsp.readlink(path).catch(() => '')}` }
  if (!stat.isFile()) {
    throw new FileLockError('not-a-file', path, `${path} is not a regular file, so it is no lock; remove it`)
  }
  const read = await readConfinedFile(path, root, {
    roots: [root],
    maxBytes: MAX_LOCK_BYTES,
    fs: nodeAdapters().fs,
  })
  if (!read.ok)
    return read.reason === 'missing' ? { kind: 'none' } : { kind: 'garbage', text: `unread:${read.reason}` }
  const info = read.truncated ? undefined : parseLock(read.text)
  return info === undefined ? { kind: 'garbage', text: read.text } : { kind: 'lock', text: read.text, info }
}

/** A fingerprint of what is at `path` now, to compare with what was judged stale. */
async function fingerprint(path: string, root: string): Promise<string | undefined> {
  const found = await examine(path, root).catch(() => undefined)
  return found === undefined || found.kind === 'none' ? undefined : found.text
}

/**
 * Removes the stale lock whose text is `seen`, and nothing else: the lock
 * is first renamed aside (rename is atomic, so one process gets it), then
 * compared with what was judged stale. When another process had replaced
 * it meanwhile with its own live lock, that lock is linked back into place.
 */
async function takeOver(path: string, root: string, seen: string): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(6).toString('hex')}`
  try {
    await fsp.rename(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const moved = await fingerprint(aside, root)
  if (moved !== seen) await fsp.link(aside, path).catch(() => undefined)
  await fsp.unlink(aside).catch(() => undefined)
}

/** A lock this process holds. */
export interface HeldLock {
  readonly path: string
  readonly info: LockInfo
  /** Removes the lock if it is still this one (a lock taken over as stale is someone else's by now). */
  release(): Promise<void>
}

/**
 * Takes the lock at `path`, which holds across processes: a file created
 * exclusively (`writeFileSafely` with `exclusive`, so it appears whole and
 * never through a link) holding {@link LockInfo}. While another live
 * process holds it, waits (polling, up to `waitMs`, then `busy`). A stale
 * lock (see {@link isStale}: its process is gone, or it is older than
 * `staleMs`) is taken over, so a process killed while holding the lock
 * blocks the next writer only until that is seen.
 */
export async function acquireFileLock(path: string, options: FileLockOptions): Promise<HeldLock> {
  const target = resolve(path)
  const root = resolve(options.root)
  const now = options.now ?? Date.now
  const staleMs = options.staleMs ?? LOCK_STALE_MS
  const waitMs = options.waitMs ?? LOCK_WAIT_MS
  const host = hostname()
  const isAlive = options.isAlive ?? processAlive
  const started = now()
  let delay = 1
  for (;;) {
    const info: LockInfo = {
      pid: process.pid,
      host,
      at: new Date(now()).toISOString(),
      nonce: randomBytes(12).toString('hex'),
    }
    try {
      await writeFileSafely(target, `${JSON.stringify(info)}\n`, { root, exclusive: true, durable: false })
      return held(target, root, info)
    } catch (error) {
      if (!(error instanceof SafeWriteError)) throw error
      if (error.code === 'not-a-file') {
        throw new FileLockError(
          'not-a-file',
          target,
          `${target} is not a regular file, so it is no lock; remove it`,
        )
      }
      if (error.code !== 'exists' && error.code !== 'target-is-link') throw error
    }
    const found = await examine(target, root)
    if (found.kind === 'none') continue
    if (found.kind === 'garbage' || isStale(found.info, { now: now(), staleMs, host, isAlive })) {
      await takeOver(target, root, found.text)
      continue
    }
    if (now() - started >= waitMs) {
      const { pid, host: where, at } = found.info
      throw new FileLockError(
        'busy',
        target,
        `${target} is held by process ${pid} on ${where} since ${at}; if no sysprompt is writing there, remove the file`,
        found.info,
      )
    }
    await sleep(delay + Math.random() * delay)
    delay = Math.min(delay * 2, 25)
  }
}

function held(path: string, root: string, info: LockInfo): HeldLock {
  let released = false
  return {
    path,
    info,
    async release() {
      if (released) return
      released = true
      const found = await examine(path, root).catch(() => undefined)
      if (found?.kind === 'lock' && found.info.nonce === info.nonce)
        await fsp.unlink(path).catch(() => undefined)
    },
  }
}

/** Callers of this process waiting for the same lock path, served one at a time before they contend on the file. */
const local = new Map<string, Promise<unknown>>()

/**
 * Runs `fn` holding the lock at `path` ({@link acquireFileLock}), and
 * releases it however `fn` ends. Callers in one process queue for the path
 * in order, so only one of them at a time waits on the file.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: FileLockOptions,
): Promise<T> {
  const key = resolve(path)
  const before = local.get(key) ?? Promise.resolve()
  const run = before.then(async () => {
    const lock = await acquireFileLock(key, options)
    try {
      return await fn()
    } finally {
      await lock.release()
    }
  })
  const settled = run.then(
    () => undefined,
    () => undefined,
  )
  local.set(key, settled)
  try {
    return await run
  } finally {
    if (local.get(key) === settled) local.delete(key)
  }
}
