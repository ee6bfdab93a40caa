import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { Script } from 'node:vm'
import { writeFileSafely } from './safe-write.js'
import { cacheMac, prepareUserCache, reportCacheProblem, userCacheKey } from './user-cache.js'

// Much of a command's start is V8 compiling JavaScript: the bundled command
// line code (a megabyte and a half), and, when an encoding cannot load from
// the package's compact rank table (rank-table-file.ts), gpt-tokenizer's
// rank module, 2.4 MB holding one array literal of 200 000 strings.
// V8 can keep what it compiled as a code cache (`vm.Script` `cachedData`),
// and a later process reads it back in a fraction of the time. Node's own
// `module.enableCompileCache` would do the compiling part, but it trusts
// whatever cache it finds; this one checks its own header and payload. The cache files live in the user's
// cache directory beside the token counts; each names the Node, V8 and
// source it was made for plus the sha256 of its payload, and one that does
// not match (another Node, another gpt-tokenizer, a truncated or corrupt
// file) is not used but rebuilt. V8 rejects a cache for another V8 or
// other flags by itself (`cachedDataRejected`), and it is rebuilt then too.
//
// Each file is a "checked file" (`checkedFile`, `readCheckedFile`): one JSON
// header line, then the payload; the rank tables use the same format.
//
// The cache holds compiled code, and every check of a header can be
// computed by whoever wrote the file: so each cache file's header also
// carries an HMAC of its fields and payload hash under the user's key
// (user-cache.ts), which lives beside it and is checked with the directory
// (this user's, mode 0700, outside the project). A file without the right
// MAC is not run but rebuilt, and reported once.

/** What a code cache file says it is on its first line. */
const FORMAT = 'sysprompt-v8-code-cache/2'
/** A code cache file larger than this is not one this module wrote (o200k's is about 4.5 MB). */
const MAX_BYTES = 32 * 1024 * 1024

/** What a checked file's header says: what it is (compared field by field) and, as `payload`, the sha256 of the rest. */
type Header = Record<string, string>

const sha256 = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** The header a cache of `source` must have in this process. */
function expected(sourceHash: string): Header {
  return { format: FORMAT, node: process.version, v8: process.versions.v8, source: sourceHash }
}

/**
 * A checked file's bytes: a one-line JSON header (`header` plus the
 * payload's sha256), padded with spaces so that the payload starts on an
 * 8-byte boundary (a table can then be read as 32-bit words where it lies),
 * then the payload. Read back with {@link readCheckedFile}.
 */
export function checkedFile(header: Header, payload: Uint8Array): Buffer {
  const line = Buffer.from(JSON.stringify({ ...header, payload: sha256(payload) }))
  const padding = Buffer.alloc(7 - (line.length % 8), ' ')
  return Buffer.concat([line, padding, Buffer.from('\n'), payload])
}

/** A checked file read back: its whole header (`want`'s fields and any others it holds) and its payload. */
export interface CheckedFile {
  header: Header
  payload: Buffer
}

/**
 * The checked file at `path`, trusting nothing: a link, a non-file, a file
 * over `maxBytes`, one whose header differs from `want` in any field (or
 * holds anything but strings), or whose payload does not match its sha256
 * gives `undefined`. The payload is a view of a fresh buffer, starting
 * where {@link checkedFile} aligned it.
 */
export function readCheckedFile(path: string, want: Header, maxBytes: number): CheckedFile | undefined {
  const read = readChecked(path, maxBytes)
  if (typeof read === 'string') return undefined
  for (const [key, value] of Object.entries(want)) if (read.header[key] !== value) return undefined
  return read
}

/** A checked file whose header and payload agree, or `missing` (nothing there), or `damaged` (anything else). */
function readChecked(path: string, maxBytes: number): CheckedFile | 'missing' | 'damaged' {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'damaged'
  }
  let bytes: Buffer
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > maxBytes) return 'damaged'
    bytes = Buffer.alloc(stat.size)
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read)
      if (n === 0) return 'damaged'
      read += n
    }
  } catch {
    return 'damaged'
  } finally {
    closeSync(fd)
  }
  const newline = bytes.indexOf(10)
  if (newline < 0 || newline > 4096) return 'damaged'
  let header: Partial<Header>
  try {
    header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as Partial<Header>
  } catch {
    return 'damaged'
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return 'damaged'
  if (Object.values(header).some((value) => typeof value !== 'string')) return 'damaged'
  const payload = bytes.subarray(newline + 1)
  return header.payload === sha256(payload) ? { header: header as Header, payload } : 'damaged'
}

/** The MAC a code cache's header carries: its expected fields and its payload's hash, under the user's key. */
function macOf(key: Buffer, header: Header, payloadHash: string): string {
  return cacheMac(key, `${JSON.stringify(header)}\n${payloadHash}`)
}

/**
 * Reads the code cache at `path` in the cache directory `dir` for
 * `sourceHash` in this Node and V8. One made for another Node, V8 or source
 * is stale: not used, silently. One that is damaged, or whose MAC is not
 * the user's key's, is not used and is reported; both are rebuilt.
 */
function readCache(dir: string, path: string, sourceHash: string): Buffer | undefined {
  const key = userCacheKey(dir)
  if (!('key' in key)) {
    if ('problem' in key) reportCacheProblem(key.problem)
    return undefined
  }
  const read = readChecked(path, MAX_BYTES)
  if (read === 'missing') return undefined
  const want = expected(sourceHash)
  if (read !== 'damaged' && read.header.format !== want.format) return undefined
  if (read !== 'damaged' && Object.entries(want).some(([field, value]) => read.header[field] !== value))
    return undefined
  if (read === 'damaged' || read.header.mac !== macOf(key.key, want, read.header.payload!)) {
    reportCacheProblem(`the code cache ${path} failed its checks; it was not run and will be rebuilt`)
    return undefined
  }
  return read.payload
}

/** Cache files to write when the command ends: path → the cache directory, the header without its MAC, the payload. */
const pending = new Map<string, { dir: string; header: Header; payload: Buffer }>()

/** A script compiled through the code cache: call `run` with the wrapper's parameters, then `keep` once it has done its work. */
export interface CachedScript {
  /** The compiled function (its parameters are `params`), to call once. */
  run: (...args: unknown[]) => unknown
  /** Whether V8 took the code from the cache. */
  fromCache: boolean
  /**
   * Queues a cache for {@link flushCodeCaches} when none was used. Called
   * after the script has run, the cache holds the functions the run
   * compiled as well, not only the top level.
   */
  keep(): void
}

/** Where a script's code cache lives: the user's cache directory and the cache's name there (`v8/<name>.bin`). */
export interface CodeCacheSlot {
  dir: string
  name: string
}

/**
 * Compiles the script at `file` as the body of a function taking `params`,
 * through the code cache `cache` when that holds a valid cache for this
 * source in this Node and V8, signed with the user's key (`undefined`: no
 * cache, read or written). `sourceHash` is the sha256 of the file when the
 * caller knows it (the build records the bundle's, so a start-up does not
 * hash a megabyte); otherwise the file is hashed.
 */
export function compileCached(
  file: string,
  cache: CodeCacheSlot | undefined,
  params: readonly string[],
  knownHash?: string,
): CachedScript {
  // Safe as a plain read: `file` is the package's own bundle or a dependency's rank table, never a repository's file.
  const source = readFileSync(file, 'utf8')
  const sourceHash = cache === undefined ? '' : (knownHash ?? sha256(source))
  const path = cache === undefined ? undefined : join(cache.dir, 'v8', `${cache.name}.bin`)
  const cachedData =
    cache === undefined || path === undefined ? undefined : readCache(cache.dir, path, sourceHash)
  const script = new Script(`(function (${params.join(', ')}) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  const fromCache = cachedData !== undefined && script.cachedDataRejected !== true
  return {
    run: script.runInThisContext() as (...args: unknown[]) => unknown,
    fromCache,
    keep() {
      if (fromCache || cache === undefined || path === undefined) return
      pending.set(path, { dir: cache.dir, header: expected(sourceHash), payload: script.createCachedData() })
    },
  }
}

/** A module run through the code cache: its exports, and whether V8 took its code from the cache. */
export interface CachedModule {
  exports: Record<string, unknown>
  fromCache: boolean
}

/**
 * Runs the CommonJS module at `file` (one that needs nothing but `exports`,
 * like gpt-tokenizer's rank tables) and returns its exports, compiled from
 * the code cache in `cacheDir` (`v8/<name>.bin`) when that holds a valid
 * one; otherwise the module is compiled from source and a cache for it is
 * queued for {@link flushCodeCaches}.
 */
export function runCachedModule(file: string, cacheDir: string): CachedModule {
  const script = compileCached(file, { dir: cacheDir, name: basename(file, '.js') }, ['exports'])
  const exports: Record<string, unknown> = {}
  script.run(exports)
  script.keep()
  return { exports, fromCache: script.fromCache }
}

/**
 * Writes the code caches this process built, each signed with the user's
 * key (created on first use), atomically and never through a link. Never
 * rejects: a cache that cannot be written is skipped (the next run
 * compiles from source again), and the problems are returned.
 */
export async function flushCodeCaches(): Promise<string[]> {
  const problems: string[] = []
  const ready = new Map<string, Promise<Buffer>>()
  for (const [path, { dir, header, payload }] of pending) {
    try {
      if (!ready.has(dir)) ready.set(dir, prepareUserCache(dir))
      const key = await ready.get(dir)!
      await mkdir(dirname(path), { recursive: true, mode: 0o700 })
      const bytes = checkedFile({ ...header, mac: macOf(key, header, sha256(payload)) }, payload)
      await writeFileSafely(path, bytes, { root: dir, durable: false })
    } catch (error) {
      problems.push((error as Error).message)
    }
  }
  pending.clear()
  return problems
}
