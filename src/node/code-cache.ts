import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { Script } from 'node:vm'
import { writeFileSafely } from './safe-write.js'

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
// The cache holds compiled code, so it is only as trustworthy as the user's
// own cache directory: the same trust as the user's shell start-up files.
// The payload hash catches a damaged file, not a deliberate one.

/** What a code cache file says it is on its first line. */
const FORMAT = 'sysprompt-v8-code-cache/1'
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
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  let bytes: Buffer
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > maxBytes) return undefined
    bytes = Buffer.alloc(stat.size)
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read)
      if (n === 0) return undefined
      read += n
    }
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
  const newline = bytes.indexOf(10)
  if (newline < 0 || newline > 4096) return undefined
  let header: Partial<Header>
  try {
    header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as Partial<Header>
  } catch {
    return undefined
  }
  if (header === null || typeof header !== 'object') return undefined
  if (Object.values(header).some((value) => typeof value !== 'string')) return undefined
  for (const [key, value] of Object.entries(want)) if (header[key] !== value) return undefined
  const payload = bytes.subarray(newline + 1)
  return header.payload === sha256(payload) ? { header: header as Header, payload } : undefined
}

/** Reads a code cache file for `sourceHash` in this Node and V8. */
function readCache(path: string, sourceHash: string): Buffer | undefined {
  return readCheckedFile(path, expected(sourceHash), MAX_BYTES)?.payload
}

/** Cache files to write when the command ends: path → contents. */
const pending = new Map<string, Buffer>()

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

/**
 * Compiles the script at `file` as the body of a function taking `params`,
 * through the code cache at `cachePath` when that holds a valid cache for
 * this source in this Node and V8 (`undefined`: no cache, read or written).
 * `sourceHash` is the sha256 of the file when the caller knows it (the
 * build records the bundle's, so a start-up does not hash a megabyte);
 * otherwise the file is hashed.
 */
export function compileCached(
  file: string,
  cachePath: string | undefined,
  params: readonly string[],
  knownHash?: string,
): CachedScript {
  // Safe as a plain read: `file` is the package's own bundle or a dependency's rank table, never a repository's file.
  const source = readFileSync(file, 'utf8')
  const sourceHash = cachePath === undefined ? '' : (knownHash ?? sha256(source))
  const cachedData = cachePath === undefined ? undefined : readCache(cachePath, sourceHash)
  const script = new Script(`(function (${params.join(', ')}) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  const fromCache = cachedData !== undefined && script.cachedDataRejected !== true
  return {
    run: script.runInThisContext() as (...args: unknown[]) => unknown,
    fromCache,
    keep() {
      if (fromCache || cachePath === undefined) return
      pending.set(cachePath, checkedFile(expected(sourceHash), script.createCachedData()))
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
  const script = compileCached(file, join(cacheDir, 'v8', `${basename(file, '.js')}.bin`), ['exports'])
  const exports: Record<string, unknown> = {}
  script.run(exports)
  script.keep()
  return { exports, fromCache: script.fromCache }
}

/**
 * Writes the code caches this process built, each atomically and never
 * through a link. Never rejects: a cache that cannot be written is
 * skipped (the next run compiles from source again), and the problems are
 * returned.
 */
export async function flushCodeCaches(): Promise<string[]> {
  const problems: string[] = []
  for (const [path, bytes] of pending) {
    const dir = dirname(path)
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 })
      await writeFileSafely(path, bytes, { root: dirname(dir), durable: false })
    } catch (error) {
      problems.push((error as Error).message)
    }
  }
  pending.clear()
  return problems
}
