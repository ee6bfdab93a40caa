import { randomBytes } from 'node:crypto'
import * as fsp from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'

/**
 * The file operations a safe write needs: a subset of `node:fs/promises`,
 * injected so tests can deny a permission or swap a directory mid-write.
 */
export type SafeWriteFs = Pick<
  typeof fsp,
  'lstat' | 'open' | 'rename' | 'link' | 'unlink' | 'realpath' | 'readlink'
>

/** Why a write was refused or failed; stable, for callers and tests. */
export type SafeWriteCode =
  | 'target-is-link'
  | 'not-a-file'
  | 'parent-is-link'
  | 'parent-not-a-directory'
  | 'parent-missing'
  | 'exists'
  | 'permission-denied'
  | 'write-failed'

/** A refused or failed write: `code` says why, `path` names the file or directory at fault. */
export class SafeWriteError extends Error {
  override readonly name = 'SafeWriteError'

  constructor(
    readonly code: SafeWriteCode,
    readonly path: string,
    what: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${path} ${what}`, options.cause === undefined ? undefined : { cause: options.cause })
  }
}

export interface SafeWriteOptions {
  /** Defaults to the real `node:fs/promises`. */
  fs?: SafeWriteFs
  /**
   * A directory above `path` that the write is confined to: every directory
   * between it and `path` must be a real directory, not a link (so `init`
   * never writes into a `.sysprompt` that points elsewhere). Without it only
   * the immediate parent is checked. The root itself may be a link.
   */
  root?: string
  /** Refuse (`exists`) when `path` already exists, instead of replacing it; the check is atomic. */
  exclusive?: boolean
  /**
   * Whether the bytes reach the disk before the rename (`fsync`; default
   * true). Caches pass false: a cache file lost or torn by a crash is
   * refused by its reader and rebuilt, and each `fsync` can cost a cold
   * command tens of milliseconds on a busy disk.
   */
  durable?: boolean
  /**
   * Runs after the bytes are in the temporary file and before it takes the
   * target's place; throwing aborts the write (the temporary file is
   * removed, the target left as it was) and the error reaches the caller
   * as thrown. A compare-and-swap re-reads what it compared here, so that a
   * change made meanwhile is not overwritten (`PUT /api/template`).
   */
  beforeCommit?: () => Promise<void> | void
}

/**
 * Writes `data` to `path` without ever following a link (SPEC §9's writes:
 * `check --update`, `init`, caches). The bytes go to a fresh temporary file
 * in the same directory (created exclusively, so nothing already there is
 * opened), which is flushed (unless not `durable`) and then renamed over `path`: a reader sees the
 * old file or the new one, never half of one, and a symlink at `path` is
 * refused rather than written through. A target that is not a regular file
 * (a FIFO, a device, a directory) and a parent directory that is a link are
 * refused, each as a `SafeWriteError` with its reason and path. The mode of
 * a file being replaced is kept.
 */
export async function writeFileSafely(
  path: string,
  data: string | Uint8Array,
  options: SafeWriteOptions = {},
): Promise<void> {
  const fs = options.fs ?? fsp
  const target = resolve(path)
  const dir = dirname(target)
  await checkDirectories(fs, dir, options.root === undefined ? undefined : resolve(options.root))
  const existing = await lstatOrUndefined(fs, target)
  if (existing !== undefined) {
    if (existing.isSymbolicLink())
      throw new SafeWriteError(
        'target-is-link',
        target,
        'is a symbolic link; sysprompt never writes through one',
      )
    if (!existing.isFile())
      throw new SafeWriteError('not-a-file', target, 'is not a regular file (a directory, FIFO or device)')
    if (options.exclusive === true) throw new SafeWriteError('exists', target, 'already exists')
  }
  const realDir = await realDirectory(fs, dir, options.root === undefined ? undefined : resolve(options.root))
  const tempName = `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  const temp = join(dir, tempName)
  try {
    // `wx` is O_CREAT | O_EXCL: never opens something already there, link or not.
    const handle = await fs.open(temp, 'wx', existing === undefined ? 0o666 : existing.mode & 0o7777)
    try {
      // The directory checked above may have been swapped for a link since:
      // the file actually created must be where the checks said.
      const opened = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
      if (opened !== undefined && opened !== join(realDir, tempName)) {
        await fs.unlink(opened).catch(() => undefined)
        throw new SafeWriteError(
          'parent-is-link',
          dir,
          'was replaced by a link while writing; nothing was written',
        )
      }
      await handle.writeFile(data)
      if (options.durable !== false) await handle.sync()
    } finally {
      await handle.close()
    }
  } catch (error) {
    if (!(error instanceof SafeWriteError)) await fs.unlink(temp).catch(() => undefined)
    throw osError(error, dir, 'could not be written to')
  }
  if (options.beforeCommit !== undefined) {
    try {
      await options.beforeCommit()
    } catch (error) {
      await fs.unlink(temp).catch(() => undefined)
      throw error
    }
  }
  try {
    if (options.exclusive === true) {
      // link() fails on anything already at `path`, so a file that appeared meanwhile is never replaced.
      await fs.link(temp, target)
      await fs.unlink(temp).catch(() => undefined)
    } else {
      // rename() replaces the directory entry itself: a link that appeared meanwhile is replaced, not followed.
      await fs.rename(temp, target)
    }
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined)
    throw osError(error, target, 'could not be replaced')
  }
}

/**
 * Where `dir` really is, computed from above the checked directories (the
 * root's real path, or the real path of the parent's parent), so a link
 * swapped in below cannot change the answer.
 */
async function realDirectory(fs: SafeWriteFs, dir: string, root: string | undefined): Promise<string> {
  const top = root ?? dirname(dir)
  const realTop = await fs.realpath(top).catch(() => top)
  return root === undefined ? join(realTop, basename(dir)) : join(realTop, relative(root, dir))
}

async function lstatOrUndefined(fs: SafeWriteFs, path: string) {
  try {
    return await fs.lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw osError(error, path, 'could not be examined')
  }
}

/** The directories from below `root` (or just the parent) down to `dir`, each a real directory. */
async function checkDirectories(fs: SafeWriteFs, dir: string, root: string | undefined): Promise<void> {
  const dirs = [dir]
  if (root !== undefined) {
    const rel = relative(root, dir)
    if (rel.startsWith('..') || resolve(root, rel) !== dir)
      throw new SafeWriteError('parent-not-a-directory', dir, `lies outside ${root}`)
    const parts = rel === '' ? [] : rel.split(sep)
    dirs.length = 0
    for (let i = 1; i <= parts.length; i++) dirs.push(join(root, ...parts.slice(0, i)))
  }
  for (const d of dirs) {
    const s = await lstatOrUndefined(fs, d)
    if (s === undefined) throw new SafeWriteError('parent-missing', d, 'does not exist')
    if (s.isSymbolicLink())
      throw new SafeWriteError(
        'parent-is-link',
        d,
        'is a symbolic link; sysprompt never writes into a directory through one',
      )
    if (!s.isDirectory()) throw new SafeWriteError('parent-not-a-directory', d, 'is not a directory')
  }
}

/** An OS error as a `SafeWriteError` with its own reason. */
function osError(error: unknown, path: string, what: string): SafeWriteError {
  if (error instanceof SafeWriteError) return error
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new SafeWriteError('permission-denied', path, `${what}: permission denied`, { cause: error })
  if (code === 'EEXIST') return new SafeWriteError('exists', path, 'already exists', { cause: error })
  if (code === 'ENOENT')
    return new SafeWriteError('parent-missing', path, `${what}: its directory vanished`, { cause: error })
  if (code === 'ENOTDIR' || code === 'ELOOP')
    return new SafeWriteError('parent-is-link', path, `${what}: a directory on its path changed`, {
      cause: error,
    })
  if (code === 'EISDIR') return new SafeWriteError('not-a-file', path, 'is a directory', { cause: error })
  return new SafeWriteError('write-failed', path, `${what} (${code ?? (error as Error).message})`, {
    cause: error,
  })
}
