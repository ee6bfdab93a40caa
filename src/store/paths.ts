import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  statSync,
} from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join } from 'node:path'
import { StoreError } from '../compile/store-errors.js'

/** What `defaultStatePath` reads; injectable for tests. */
export interface StatePathEnvironment {
  env?: Record<string, string | undefined>
  platform?: string
  home?: string
}

/**
 * The default SQLite file, in the user's state directory and never in a
 * repository: `$XDG_STATE_HOME/sysprompt/state.db`, else
 * `~/.local/state/sysprompt/state.db` (Linux and other Unix),
 * `~/Library/Application Support/sysprompt/state.db` (macOS),
 * `%LOCALAPPDATA%\sysprompt\state.db` (Windows).
 */
export function defaultStatePath(environment: StatePathEnvironment = {}): string {
  const env = environment.env ?? process.env
  const platform = environment.platform ?? process.platform
  const home = environment.home ?? homedir()
  const xdg = env.XDG_STATE_HOME
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'sysprompt', 'state.db')
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'sysprompt', 'state.db')
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA
    return join(
      local !== undefined && isAbsolute(local) ? local : join(home, 'AppData', 'Local'),
      'sysprompt',
      'state.db',
    )
  }
  return join(home, '.local', 'state', 'sysprompt', 'state.db')
}

function refuse(path: string, detail: string): StoreError {
  return new StoreError({ code: 'invalid', operation: 'open', detail: `${path}: ${detail}` })
}

/** Fails unless `path` is missing or a regular file that is not a link. */
function checkRegular(path: string): boolean {
  let stat: ReturnType<typeof lstatSync>
  try {
    stat = lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw refuse(path, `cannot be inspected (${(error as Error).message})`)
  }
  if (stat.isSymbolicLink()) throw refuse(path, 'is a symbolic link; name the database file itself')
  if (!stat.isFile()) throw refuse(path, 'is not a regular file; name a database file')
  return true
}

/** The files of a SQLite database: itself and the companions SQLite writes beside it. */
export const databaseFiles = (path: string): string[] =>
  [path, '-wal', '-shm', '-journal'].map((s) => (s === path ? s : path + s))

/** The user id files must belong to; undefined where the platform has none (Windows: modes do not apply). */
const me = (): number | undefined => process.getuid?.()

function foreignOwner(path: string, uid: number, what: string): StoreError {
  return refuse(
    path,
    `${what} belongs to another user (uid ${uid}), and a store holds what your agents sent, so it stays private to you: name a store of your own (--store sqlite:PATH in a directory you own) or ask that user to remove it`,
  )
}

/**
 * Makes the store's own directory private (SPEC §11 files): created with
 * mode 0700 when missing, tightened to 0700 when found wider, refused when
 * another user owns it. For the directory sysprompt owns (the default
 * location), not for a directory the user named a database in.
 */
export function ensurePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const uid = me()
  if (uid === undefined) return
  const stat = statSync(dir)
  if (stat.uid !== uid) throw foreignOwner(dir, stat.uid, 'the store directory')
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700)
}

/**
 * Makes an existing store file private: mode 0600, tightened when found
 * wider, refused when another user owns it; a missing file is left alone.
 * Opened without following links and changed through its descriptor, so
 * the file checked is the file changed. For the database, its companions
 * and the bodies `--keep-bodies` writes beside the store.
 */
export function ensurePrivateFile(path: string): void {
  const uid = me()
  if (uid === undefined) return
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return
    if (code === 'ELOOP') throw refuse(path, 'is a symbolic link; name the database file itself')
    throw refuse(path, `cannot be inspected (${(error as Error).message})`)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw refuse(path, 'is not a regular file; name a database file')
    if (stat.uid !== uid) throw foreignOwner(path, stat.uid, 'the file')
    if ((stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600)
  } finally {
    closeSync(fd)
  }
}

/**
 * Makes `path` safe for SQLite to open: the database and its `-wal`,
 * `-shm` and `-journal` companions must each be missing or a regular file,
 * never a link (a planted link would redirect our writes), and private to
 * the user (0600, tightened when wider; refused when another user's). A
 * missing database is created here, exclusively, without following links,
 * mode 0600; with `createParent` (the default location) its directory is
 * created too, or made private when it exists (`ensurePrivateDirectory`).
 */
export function prepareDatabasePath(path: string, options: { createParent?: boolean } = {}): void {
  const exists = databaseFiles(path).map(checkRegular)[0]!
  if (options.createParent) ensurePrivateDirectory(dirname(path))
  for (const file of databaseFiles(path)) ensurePrivateFile(file)
  if (exists) return
  try {
    const flags = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0)
    closeSync(openSync(path, flags, 0o600))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Another process created it first: fine when it is a regular file.
    if (code === 'EEXIST' && checkRegular(path)) return
    if (code === 'ENOENT') throw refuse(path, 'its directory does not exist; create it or name another path')
    throw refuse(path, `cannot be created (${(error as Error).message})`)
  }
}
