import { stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { isInside } from '../index.js'
import { ProjectError } from './errors.js'

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined
}

/**
 * The project root the command line works in: `--root` when given, else the
 * nearest directory, `cwd` itself or an ancestor, that holds a `.sysprompt/`
 * directory or a `.git` (directory, or file for worktrees and submodules),
 * whichever is nearer; else `cwd`. Looking for `.sysprompt/` too lets a
 * project inside another repository (an example, a vendored package) be its
 * own root instead of inheriting the outer repository's AGENTS.md.
 */
export async function projectRoot(cwd: string, root: string | undefined): Promise<string> {
  if (root !== undefined) {
    if (!isInside(root, cwd)) {
      throw new ProjectError(
        'cwd-outside-root',
        `the working directory ${cwd} is not inside the project root ${root}`,
        'pass a --root that contains --cwd',
        { usage: true },
      )
    }
    return root
  }
  for (let dir = cwd; ; dir = dirname(dir)) {
    if ((await isDir(join(dir, '.sysprompt'))) || (await exists(join(dir, '.git')))) return dir
    if (dirname(dir) === dir) return cwd
  }
}
