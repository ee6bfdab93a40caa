import { resolve } from 'node:path'
import { type FileSystemAdapter, nodeAdapters } from './adapters.js'
import { findGitRoot } from './instructions/git-root.js'
import { isInside } from './safe-read.js'

export interface ProjectRootOptions {
  /** Where the walk starts (resolved to an absolute path). */
  cwd: string
  /** The configured root: the walk never goes above it, and the answer when no `.git` is found below it. */
  root: string
  /** Defaults to the real file system. */
  fs?: FileSystemAdapter
}

/**
 * The project root for `cwd` (SPEC §3, §6): the nearest directory holding a
 * `.git` directory or file (a worktree or submodule has a `.git` file),
 * searched from `cwd` up to the configured `root` and never beyond it, else
 * `root`. The configured root is the confinement boundary, so a repository
 * enclosing it (a monorepo around a package root, a dotfiles repository in
 * the home directory) never widens what the project may read; a `cwd`
 * outside `root` gets `root` without any search. Found by looking at the
 * file system rather than by running git, so it costs a few `stat` calls,
 * works where git is not installed and never waits on a process.
 */
export async function findProjectRoot(options: ProjectRootOptions): Promise<string> {
  return (await locateProject(options)).root
}

/**
 * `findProjectRoot` plus whether `cwd` lies inside the configured root
 * (`false` means the root is only the fallback): the project resolver
 * discovers no instructions for a working directory outside the boundary.
 */
export async function locateProject(
  options: ProjectRootOptions,
): Promise<{ root: string; containsCwd: boolean }> {
  const fs = options.fs ?? nodeAdapters().fs
  const top = resolve(options.root)
  const start = await within(fs, top, resolve(options.cwd))
  if (start === undefined) return { root: top, containsCwd: false }
  return { root: (await findGitRoot(start.cwd, start.top, fs)) ?? top, containsCwd: true }
}

/**
 * `cwd` and `top` as paths the walk can compare: as given when `cwd` lies
 * inside `top`, else both with links resolved (a root given through a
 * symbolic link, a cwd given by its real path); `undefined` when `cwd` is
 * outside `top` either way.
 */
async function within(
  fs: FileSystemAdapter,
  top: string,
  cwd: string,
): Promise<{ top: string; cwd: string } | undefined> {
  if (isInside(top, cwd)) return { top, cwd }
  const [realTop, realCwd] = await Promise.all([
    fs.realpath(top).catch(() => top),
    fs.realpath(cwd).catch(() => cwd),
  ])
  return isInside(realTop, realCwd) ? { top: realTop, cwd: realCwd } : undefined
}
