import { createHmac, randomBytes } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs'
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises'
import { dirname, join, parse, relative, resolve, sep } from 'node:path'
import { writeFileSafely } from './safe-write.js'

// The user's cache directory holds compiled code (V8's code cache) and
// token counts: a code cache runs as code, and a forged count changes what
// `show --json` reports. A repository can put such files where sysprompt
// looks when a CI job sets HOME or XDG_CACHE_HOME inside the checkout, and
// every check of a file's own header can be computed by whoever wrote it.
// So a cache directory is used only when
//
// - it lies outside the project (`insideProject`, below), whoever owns it;
// - it is a real directory (not a link) owned by this user, mode 0700;
// - and each entry carries an HMAC-SHA256 under a per-user random key kept
//   beside the entries (`key`, 32 bytes, mode 0600, created on first use):
//   a file without the right MAC is ignored and rebuilt.
//
// A problem of trust is reported once per process (`reportCacheProblem`);
// the cache is then not used, or the entry rebuilt. A cache that merely
// cannot be written (a read-only disk) stays silent, as before.

/** The key file's name in the cache directory. */
const KEY_FILE = 'key'
const KEY_BYTES = 32
/** What happens after a key fails: the next write replaces it, and every entry signed with the old one is rebuilt. */
const REBUILT = ', so the cache was not used; a new key replaces it and the cache is rebuilt'

/** Where a cache problem goes: one shared slot, so the launcher's bundle and the command's report once between them. */
const REPORTER = Symbol.for('sysprompt.cache-problem-reporter')
type Slot = { [REPORTER]?: { report: (message: string) => void; reported: boolean } }

/**
 * Sends the cache problems of this process to `report`, the first one only
 * (the command line prints it as one warning). Without a reporter, problems
 * are silent: a library user's cache is rebuilt all the same.
 */
export function onCacheProblem(report: ((message: string) => void) | undefined): void {
  const slot = globalThis as Slot
  if (report === undefined) delete slot[REPORTER]
  else slot[REPORTER] = { report, reported: false }
}

/** Reports a cache problem (ignored once one was reported in this process). */
export function reportCacheProblem(message: string): void {
  const reporter = (globalThis as Slot)[REPORTER]
  if (reporter === undefined || reporter.reported) return
  reporter.reported = true
  reporter.report(message)
}

/** The keyed checksum of an entry: HMAC-SHA256 of `text` under the user's key, hex. */
export function cacheMac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex')
}

const uid = (): number | undefined => process.getuid?.()

/** What is wrong with an existing directory or key file as a holder of this user's cache; `undefined`: nothing. */
function ownershipProblem(stats: Stats, what: 'directory' | 'file'): string | undefined {
  if (stats.isSymbolicLink()) return 'is a link'
  if (what === 'directory' ? !stats.isDirectory() : !stats.isFile()) return `is not a ${what}`
  const me = uid()
  // Windows has neither: its per-user profile directories are the boundary there.
  if (me === undefined) return undefined
  if (stats.uid !== me) return 'belongs to another user'
  if ((stats.mode & 0o077) !== 0)
    return `is open to other users (mode ${(stats.mode & 0o777).toString(8)}, not ${what === 'directory' ? '700' : '600'})`
  return undefined
}

/** A cache directory's key, or why the directory cannot be used; `missing` when nothing is there yet. */
export type CacheKey = { key: Buffer } | { problem: string } | { missing: true }

const keys = new Map<string, CacheKey>()

/**
 * The key of the cache in `dir`, read once per process: the directory must
 * be this user's (see above), and its key file a regular file of 32 bytes,
 * this user's, mode 0600, not a link. `missing` when the directory or its key
 * does not exist yet ({@link prepareUserCache} creates both); a key file that
 * fails is a `problem` (the next write replaces it).
 */
export function userCacheKey(dir: string): CacheKey {
  const known = keys.get(dir)
  if (known !== undefined) return known
  const found = readKey(dir)
  keys.set(dir, found)
  return found
}

/**
 * Makes this user's own cache directory private when it is readable by
 * others but writable only by this user (mode 0755: what sysprompt itself
 * created before the cache was keyed, and what `mkdir` gives under the usual
 * umask). Nobody else could have written into it, so it is safe to keep;
 * one writable by others is left alone and refused. True when it changed.
 */
function tightened(dir: string, stats: Stats): boolean {
  const me = uid()
  if (me === undefined || !stats.isDirectory() || stats.isSymbolicLink() || stats.uid !== me) return false
  if ((stats.mode & 0o077) === 0 || (stats.mode & 0o022) !== 0) return false
  try {
    chmodSync(dir, 0o700)
    return true
  } catch {
    return false
  }
}

function readKey(dir: string): CacheKey {
  let stats: Stats
  try {
    stats = lstatSync(dir)
  } catch {
    return { missing: true }
  }
  if (tightened(dir, stats)) stats = lstatSync(dir)
  const dirProblem = ownershipProblem(stats, 'directory')
  if (dirProblem !== undefined)
    return {
      problem: `the cache directory ${dir} ${dirProblem}, so it is not used: make it private or remove it`,
    }
  const path = join(dir, KEY_FILE)
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT'
      ? { missing: true }
      : { problem: `the cache key ${path} cannot be read (${code})${REBUILT}` }
  }
  try {
    const keyStats = fstatSync(fd)
    const problem = ownershipProblem(keyStats, 'file')
    if (problem !== undefined) return { problem: `the cache key ${path} ${problem}${REBUILT}` }
    if (keyStats.size !== KEY_BYTES)
      return { problem: `the cache key ${path} is not ${KEY_BYTES} bytes${REBUILT}` }
    const key = Buffer.alloc(KEY_BYTES)
    if (readSync(fd, key, 0, KEY_BYTES, 0) !== KEY_BYTES)
      return { problem: `the cache key ${path} is short${REBUILT}` }
    return { key }
  } catch {
    return { problem: `the cache key ${path} cannot be read${REBUILT}` }
  } finally {
    closeSync(fd)
  }
}

/**
 * Makes `dir` ready for writing and returns its key: creates the directory
 * (mode 0700) and a fresh random key (mode 0600, created exclusively) when
 * missing, and replaces a key that failed its checks (every entry signed
 * with the old one is then rebuilt). Throws when the directory itself
 * cannot be this user's private cache.
 */
export async function prepareUserCache(dir: string): Promise<Buffer> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  let stats = await lstat(dir)
  if (tightened(dir, stats)) stats = await lstat(dir)
  const dirProblem = ownershipProblem(stats, 'directory')
  if (dirProblem !== undefined) throw new Error(`the cache directory ${dir} ${dirProblem}, so it is not used`)
  keys.delete(dir)
  const read = userCacheKey(dir)
  if ('key' in read) return read.key
  const key = randomBytes(KEY_BYTES)
  const path = join(dir, KEY_FILE)
  // A bad key (a link too: unlink removes the link, not what it names) goes; the new one is created exclusively.
  if ('problem' in read) await unlink(path)
  await writeFileSafely(path, key, { root: dir, durable: false, exclusive: true })
  await chmod(path, 0o600)
  keys.set(dir, { key })
  return key
}

/** Forgets the keys read so far (tests that change a key file between runs). */
export function forgetCacheKeys(): void {
  keys.clear()
}

/**
 * Whether the cache directory `dir` lies inside the project a command run
 * from `start` works on, by a rule cheap enough for the launcher, which
 * has not parsed its arguments yet: the project root is the nearest
 * directory from `start` up that holds `.git` or `.sysprompt` (as
 * `projectRoot` finds it), else `start` itself; the cache is inside when it
 * is that root or below it. Both sides are compared as real paths, so a
 * link neither hides nor invents containment. The search for the root
 * stops at the deepest directory holding both: a marker found below it is
 * a root that cannot hold the cache, so the common case (`~/.cache` and a
 * repository under the home directory) costs a stat or two. The user's own
 * home directory (from the password database, not `$HOME`), when it is the
 * project root only because no marker was found, is not a project.
 */
export function insideProject(dir: string, start: string): boolean {
  const cache = realPath(dir)
  const from = realPath(start)
  const common = commonAncestor(cache, from)
  for (let here = from; here !== common; here = dirname(here)) {
    if (hasMarker(here)) return false
  }
  for (let here = common; ; here = dirname(here)) {
    if (hasMarker(here)) return true
    if (dirname(here) === here) break
  }
  // No marker anywhere: the root is `start`, which holds the cache only if it is the common ancestor.
  return common === from && from !== homeOfUser()
}

/** The cache directory's problem with each of `starts` (this run's directory, `--cwd`, `--root`): the first one inside. */
export function cacheInsideProject(dir: string, starts: readonly string[]): string | undefined {
  for (const start of starts) {
    if (insideProject(dir, start))
      return `the cache directory ${dir} is inside the project at ${start}, where a repository could have put it`
  }
  return undefined
}

function hasMarker(dir: string): boolean {
  return existsSync(join(dir, '.git')) || isDirectory(join(dir, '.sysprompt'))
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended (a cache not created yet). */
function realPath(path: string): string {
  const absolute = resolve(path)
  let existing = absolute
  for (;;) {
    try {
      const real = realpathSync.native(existing)
      return existing === absolute ? real : join(real, relative(existing, absolute))
    } catch {
      const parent = dirname(existing)
      if (parent === existing) return absolute
      existing = parent
    }
  }
}

/** The deepest directory holding both absolute paths. */
function commonAncestor(a: string, b: string): string {
  const root = parse(a).root
  if (root !== parse(b).root) return root
  const as = a.slice(root.length).split(sep).filter(Boolean)
  const bs = b.slice(root.length).split(sep).filter(Boolean)
  let n = 0
  while (n < as.length && n < bs.length && as[n] === bs[n]) n++
  return join(root, ...as.slice(0, n))
}

function homeOfUser(): string | undefined {
  try {
    // Loaded only here: `node:os` is otherwise a sign that a command built a prompt (test/e2e/cli-startup.test.ts).
    return realPath(process.getBuiltinModule('node:os').userInfo().homedir)
  } catch {
    return undefined
  }
}
