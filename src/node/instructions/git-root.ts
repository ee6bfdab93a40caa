import { dirname, join } from 'node:path'
import type { FileSystemAdapter } from '../adapters.js'

/**
 * The nearest directory, `from` itself or an ancestor no higher than
 * `stopAt`, that holds `.git` (a directory, or the file of a worktree or
 * submodule); `null` when there is none. Found by `stat` calls rather than by
 * running git: discovery must work where git is missing and never wait on a
 * process. `stopAt` exists so tests and sandboxes can keep a stray repository
 * above their temp directory out of the answer.
 */
export async function findGitRoot(
  from: string,
  stopAt: string,
  fs: FileSystemAdapter,
): Promise<string | null> {
  let dir = from
  for (;;) {
    const marker = await fs.stat(join(dir, '.git')).catch(() => undefined)
    if (marker !== undefined && marker.kind !== 'other') return dir
    const parent = dirname(dir)
    if (dir === stopAt || parent === dir) return null
    dir = parent
  }
}

/**
 * Directories from `top` down to `bottom`, both included; `bottom` must be
 * `top` or lie below it (otherwise only `bottom` is returned).
 */
export function dirsDown(top: string, bottom: string): string[] {
  const dirs: string[] = []
  let dir = bottom
  for (;;) {
    dirs.unshift(dir)
    if (dir === top) return dirs
    const parent = dirname(dir)
    if (parent === dir) return [bottom]
    dir = parent
  }
}
