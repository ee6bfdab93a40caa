import { parse, resolve } from 'node:path'
import { type FileSystemAdapter, nodeAdapters } from './adapters.js'
import { findGitRoot } from './instructions/git-root.js'

export interface ProjectRootOptions {
  /** Where the walk starts (resolved to an absolute path). */
  cwd: string
  /** The answer when no ancestor holds `.git`. */
  root: string
  /** Defaults to the real file system. */
  fs?: FileSystemAdapter
}

/**
 * The project root for `cwd` (SPEC §3, §6): the nearest directory, `cwd`
 * itself or an ancestor up to the file-system root, that holds a `.git`
 * directory or file (a worktree or submodule has a `.git` file), else
 * `root`. Found by looking at the file system rather than by running git
 * (the walk instruction discovery uses), so it costs a few `stat` calls,
 * works where git is not installed and never waits on a process.
 */
export async function findProjectRoot(options: ProjectRootOptions): Promise<string> {
  const start = resolve(options.cwd)
  const found = await findGitRoot(start, parse(start).root, options.fs ?? nodeAdapters().fs)
  return found ?? resolve(options.root)
}
