import { closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs'
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

/**
 * Makes `path` safe for SQLite to open: the database and its `-wal`,
 * `-shm` and `-journal` companions must each be missing or a regular file,
 * never a link (a planted link would redirect our writes). A missing database
 * is created here, exclusively and without following links; with
 * `createParent` (the default location) its directory is created too, private
 * to the user.
 */
export function prepareDatabasePath(path: string, options: { createParent?: boolean } = {}): void {
  for (const suffix of ['-wal', '-shm', '-journal']) checkRegular(path + suffix)
  if (checkRegular(path)) return
  if (options.createParent) mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
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
