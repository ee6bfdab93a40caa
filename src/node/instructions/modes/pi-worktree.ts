import { basename, dirname, join, resolve } from 'node:path'
import { isInside, readCheckedFile } from '../../safe-read.js'
import type { DiscoveryContext } from '../context.js'
import { isFile } from '../read.js'

/** A `.git` file or `commondir` holds one path: anything longer is not one. */
const GIT_POINTER_LIMIT = 4096

/** The main root's context file that a nested linked worktree's own file shadows. */
export interface Shadow {
  /** The main repository's file pi leaves out. */
  path: string
  /** The linked worktree's root, and its own file of that name. */
  worktree: string
  own: string
}

/**
 * pi 1.x (`findShadowedContextFile` of 1.6.0; CHANGELOG 0.83.0): when the
 * nearest `.git` above cwd is the file of a linked worktree whose main
 * repository is an ancestor of it (the main root's `.git` being the common
 * git directory: not a bare layout, not a submodule), and the worktree's
 * root holds a context file, the main root's file of the same name is not
 * loaded: both stand for the same repository. `undefined` otherwise.
 */
export async function shadowedRootFile(
  context: DiscoveryContext,
  names: readonly string[],
): Promise<Shadow | undefined> {
  const found = await linkedWorktree(context)
  if (found === undefined) return undefined
  const common = await real(context, found.commonGitDir)
  const worktree = await real(context, found.repoDir)
  if (common === undefined || worktree === undefined) return undefined
  const main = dirname(common)
  if (!isInside(main, worktree) || worktree === main) return undefined
  if ((await real(context, join(main, '.git'))) !== common) return undefined
  for (const name of names) {
    const own = join(worktree, name)
    if (await isFile(context, own)) return { path: join(main, basename(own)), worktree, own }
  }
  return undefined
}

/** The nearest `.git` from cwd up (to `fsRoot`), when it is a worktree's `gitdir:` file: its directory and common git directory. */
async function linkedWorktree(
  context: DiscoveryContext,
): Promise<{ repoDir: string; commonGitDir: string } | undefined> {
  for (let dir = context.cwd; ; dir = dirname(dir)) {
    const marker = join(dir, '.git')
    const kind = (await context.fs.stat(marker).catch(() => undefined))?.kind
    if (kind === 'directory') return undefined
    if (kind === 'file') {
      const pointer = await small(context, marker)
      if (pointer === undefined) return undefined
      // A `.git` file that is no `gitdir:` pointer is passed over, as pi passes it.
      if (pointer.startsWith('gitdir: ')) {
        const gitDir = resolve(dir, pointer.slice('gitdir: '.length).trim())
        if (!(await exists(context, join(gitDir, 'HEAD')))) return undefined
        const commonPath = join(gitDir, 'commondir')
        const common = (await exists(context, commonPath)) ? await small(context, commonPath) : undefined
        return { repoDir: dir, commonGitDir: common === undefined ? gitDir : resolve(gitDir, common) }
      }
    }
    if (dir === context.fsRoot || dirname(dir) === dir) return undefined
  }
}

/** A git pointer file's text, trimmed (git's own bookkeeping, read through the checked reader). */
async function small(context: DiscoveryContext, path: string): Promise<string | undefined> {
  const read = await readCheckedFile(path, {
    maxBytes: GIT_POINTER_LIMIT,
    oversize: 'refuse',
    fs: context.fs,
  })
  return read.ok ? read.text.trim() : undefined
}

async function exists(context: DiscoveryContext, path: string): Promise<boolean> {
  return (await context.fs.stat(path).catch(() => undefined)) !== undefined
}

async function real(context: DiscoveryContext, path: string): Promise<string | undefined> {
  return context.fs.realpath(path).catch(() => undefined)
}
