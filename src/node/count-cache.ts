import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import type { TokenCountCache } from '../compile/index.js'
import { nodeHash } from './node-hash.js'
import { writeFileSafely } from './safe-write.js'
import { cacheMac, prepareUserCache, reportCacheProblem, userCacheKey } from './user-cache.js'

/** The default bound of a disk count cache: 64 MiB over all its files. */
export const DEFAULT_COUNT_CACHE_BYTES = 64 * 1024 * 1024

/** What a count file says it is; anything else is a foreign file, ignored. */
const FORMAT = 'sysprompt-token-counts/2'
/** One file per first byte of the text hash: a run reads only the files its texts fall in. */
const SHARDS = 256
/** `<name>@<version> <sha256 hex>`: the tokenizer, its version (package and splitting) and the text. */
const KEY = /^[a-z0-9_-]{1,32}@[\x21-\x7e]{1,100} [0-9a-f]{64}$/

/**
 * The user's cache directory for sysprompt (never a repository's):
 * `$XDG_CACHE_HOME/sysprompt` when that is an absolute path, else the
 * platform's (`~/Library/Caches/sysprompt`, `%LOCALAPPDATA%\sysprompt\Cache`,
 * `~/.cache/sysprompt`). `undefined` when there is no home to put it in.
 */
export function userCacheDir(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const xdg = env.XDG_CACHE_HOME
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'sysprompt')
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA
    return local !== undefined && isAbsolute(local) ? join(local, 'sysprompt', 'Cache') : undefined
  }
  const home = env.HOME
  if (home === undefined || !isAbsolute(home)) return undefined
  return platform === 'darwin'
    ? join(home, 'Library', 'Caches', 'sysprompt')
    : join(home, '.cache', 'sysprompt')
}

/** A count cache on disk; `flush` writes what this process added. */
export interface DiskCountCache extends TokenCountCache {
  /** The directory the count files live in. */
  readonly dir: string
  /**
   * Writes the files that gained counts, each atomically (a reader sees the
   * old file or the new one) and never through a link, merged with what
   * another process wrote meanwhile, trimmed to the bound (oldest counts
   * first). Never rejects: a cache that cannot be written is skipped, and
   * the problems are returned.
   */
  flush(): Promise<string[]>
}

export interface DiskCountCacheOptions {
  /** Where the count files go, e.g. `userCacheDir(process.env)`. */
  dir: string
  /** The bound over all files, in bytes of JSON; defaults to {@link DEFAULT_COUNT_CACHE_BYTES}. */
  maxBytes?: number
}

/** Bytes an entry takes in its file, near enough for the bound. */
const entryBytes = (key: string): number => key.length + 16

/** The keyed checksum a count file carries over its entries. */
const macOf = (key: Buffer, entries: string): string => cacheMac(key, `${FORMAT}\n${entries}`)

/**
 * Reads one count file, trusting nothing in it: a link, a non-regular file,
 * one over the size bound, unparsable JSON or another format is ignored
 * whole (and rebuilt by the next flush); so is one whose MAC is not the
 * user's key's (reported, unless `quiet`); an entry of the wrong shape is
 * skipped. The open never blocks (a FIFO put there is not waited on).
 */
function readCounts(path: string, maxBytes: number, secret: Buffer, quiet = false): Map<string, number> {
  const counts = new Map<string, number>()
  const forged = () => {
    if (!quiet)
      reportCacheProblem(
        `the token counts in ${path} failed their checks; they were ignored and will be rebuilt`,
      )
    return counts
  }
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? counts : forged()
  }
  let text: string
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > maxBytes) return forged()
    const bytes = Buffer.alloc(stat.size)
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read)
      if (n === 0) break
      read += n
    }
    text = bytes.subarray(0, read).toString('utf8')
  } catch {
    return forged()
  } finally {
    closeSync(fd)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return forged()
  }
  if (typeof parsed !== 'object' || parsed === null) return forged()
  const { format, entries, mac } = parsed as { format?: unknown; entries?: unknown; mac?: unknown }
  // A file of an earlier format is stale, not forged: rebuilt without a word.
  if (format !== FORMAT) return counts
  if (!Array.isArray(entries) || typeof mac !== 'string' || mac !== macOf(secret, JSON.stringify(entries)))
    return forged()
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2) continue
    const [key, count] = entry as unknown[]
    if (typeof key !== 'string' || !KEY.test(key)) continue
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) continue
    counts.delete(key)
    counts.set(key, count)
  }
  return counts
}

/**
 * A persistent token-count cache in `dir` (SPEC §5), for
 * `compile(…, { countCache })`: counts keyed by tokenizer, tokenizer
 * version and the text's sha256, in 256 JSON files bounded together by
 * `maxBytes`, each signed with an HMAC under the user's key kept in `dir`
 * (user-cache.ts: the directory must be this user's, mode 0700; the key
 * is made on the first flush). A file that fails is ignored and rebuilt. A count found here loads no encoding, so a repeated
 * `sysprompt inspect` whose texts did not change loads no tokenizer at
 * all. Reads are synchronous (compile is); call `flush()` to write.
 */
export function diskCountCache(options: DiskCountCacheOptions): DiskCountCache {
  const { dir } = options
  const shardBytes = Math.max(4096, Math.floor((options.maxBytes ?? DEFAULT_COUNT_CACHE_BYTES) / SHARDS))
  const countsDir = join(dir, 'counts')
  const loaded = new Map<string, Map<string, number>>()
  const added = new Map<string, Map<string, number>>()
  const locate = (tokenizer: string, text: string) => {
    const hash = nodeHash(text)
    return { shard: hash.slice(0, 2), key: `${tokenizer} ${hash}` }
  }
  // The user's key, read with the first count looked up: none (or a directory that is not this user's) trusts no file.
  let key: Buffer | undefined | null = null
  const trustedKey = (): Buffer | undefined => {
    if (key !== null) return key
    const found = userCacheKey(dir)
    if ('problem' in found) reportCacheProblem(found.problem)
    key = 'key' in found ? found.key : undefined
    return key
  }
  const shardOf = (shard: string): Map<string, number> => {
    let counts = loaded.get(shard)
    if (counts === undefined) {
      const trusted = trustedKey()
      // A file over twice the bound is not one this cache wrote.
      counts =
        trusted === undefined
          ? new Map()
          : readCounts(join(countsDir, `${shard}.json`), shardBytes * 2, trusted)
      loaded.set(shard, counts)
    }
    return counts
  }
  return {
    dir,
    get(tokenizer, text) {
      const { shard, key } = locate(tokenizer, text)
      return shardOf(shard).get(key)
    },
    set(tokenizer, text, count) {
      if (!Number.isSafeInteger(count) || count < 0) return
      const { shard, key } = locate(tokenizer, text)
      if (!KEY.test(key)) return
      shardOf(shard).set(key, count)
      let mine = added.get(shard)
      if (mine === undefined) {
        mine = new Map()
        added.set(shard, mine)
      }
      mine.set(key, count)
    },
    async flush() {
      const problems: string[] = []
      if (added.size === 0) return problems
      let signing: Buffer
      try {
        signing = await prepareUserCache(dir)
        await mkdir(countsDir, { recursive: true, mode: 0o700 })
      } catch (error) {
        added.clear()
        return [`${countsDir}: ${(error as Error).message}`]
      }
      for (const [shard, mine] of added) {
        const path = join(countsDir, `${shard}.json`)
        // What another process wrote since this one read, then ours, newest last.
        const merged = readCounts(path, shardBytes * 2, signing, true)
        for (const [key, count] of mine) {
          merged.delete(key)
          merged.set(key, count)
        }
        let bytes = 0
        for (const key of merged.keys()) bytes += entryBytes(key)
        for (const key of merged.keys()) {
          if (bytes <= shardBytes) break
          merged.delete(key)
          bytes -= entryBytes(key)
        }
        const entries = JSON.stringify([...merged])
        const body = `{"format":${JSON.stringify(FORMAT)},"entries":${entries},"mac":"${macOf(signing, entries)}"}`
        try {
          await writeFileSafely(path, body, { root: dir, durable: false })
        } catch (error) {
          problems.push((error as Error).message)
        }
      }
      added.clear()
      return problems
    },
  }
}
