import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { nodeAdapters } from './adapters.js'
import { findProjectRoot } from './project-root.js'

let base: string
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-root-')))
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('findProjectRoot', () => {
  it('finds the nearest ancestor holding a .git directory', async () => {
    await mkdir(join(base, 'repo', '.git'), { recursive: true })
    await mkdir(join(base, 'repo', 'src', 'deep'), { recursive: true })
    expect(await findProjectRoot({ cwd: join(base, 'repo', 'src', 'deep'), root: base })).toBe(
      join(base, 'repo'),
    )
    expect(await findProjectRoot({ cwd: join(base, 'repo'), root: base })).toBe(join(base, 'repo'))
  })

  it('takes a .git file (worktree, submodule) and stops at the nearest one', async () => {
    await mkdir(join(base, 'outer', '.git'), { recursive: true })
    await mkdir(join(base, 'outer', 'sub', 'lib'), { recursive: true })
    await writeFile(join(base, 'outer', 'sub', '.git'), 'gitdir: ../.git/modules/sub\n')
    expect(await findProjectRoot({ cwd: join(base, 'outer', 'sub', 'lib'), root: base })).toBe(
      join(base, 'outer', 'sub'),
    )
  })

  it('falls back to the configured root when no directory up to it holds .git', async () => {
    // The real disk above the temp dir is not ours to control: a file system without any `.git`.
    const stats: string[] = []
    const fs = {
      ...nodeAdapters().fs,
      stat: async (path: string) => {
        stats.push(path)
        throw new Error(`ENOENT: ${path}`)
      },
    }
    expect(await findProjectRoot({ cwd: '/srv/app/a/b', root: '/srv/app', fs })).toBe('/srv/app')
    // The search stops at the configured root: nothing above it is looked at.
    expect(stats).toEqual(['/srv/app/a/b/.git', '/srv/app/a/.git', '/srv/app/.git'])
  })

  it('never answers above the configured root, even when a repository encloses it', async () => {
    await mkdir(join(base, 'repo', '.git'), { recursive: true })
    await mkdir(join(base, 'repo', 'b', 'c'), { recursive: true })
    const root = join(base, 'repo', 'b')
    expect(await findProjectRoot({ cwd: join(root, 'c'), root })).toBe(root)
    expect(await findProjectRoot({ cwd: root, root })).toBe(root)
  })

  it('takes a .git between the working directory and the configured root', async () => {
    await mkdir(join(base, 'repo', '.git'), { recursive: true })
    await mkdir(join(base, 'repo', 'b', 'c', '.git'), { recursive: true })
    await mkdir(join(base, 'repo', 'b', 'c', 'd'), { recursive: true })
    const root = join(base, 'repo', 'b')
    expect(await findProjectRoot({ cwd: join(root, 'c', 'd'), root })).toBe(join(root, 'c'))
    // A `.git` in the configured root itself counts.
    await mkdir(join(root, '.git'))
    expect(await findProjectRoot({ cwd: join(root, 'x'), root })).toBe(root)
  })

  it('gives the configured root, without searching, for a working directory outside it', async () => {
    await mkdir(join(base, 'other', '.git'), { recursive: true })
    await mkdir(join(base, 'root'))
    const stats: string[] = []
    const real = nodeAdapters().fs
    const fs = {
      ...real,
      stat: (path: string) => {
        stats.push(path)
        return real.stat(path)
      },
    }
    const root = join(base, 'root')
    expect(await findProjectRoot({ cwd: join(base, 'other'), root, fs })).toBe(root)
    expect(await findProjectRoot({ cwd: join(root, '..', 'other'), root, fs })).toBe(root)
    expect(stats).toEqual([])
  })

  it('compares real paths when the root is given through a link', async () => {
    await mkdir(join(base, 'real', 'repo', '.git'), { recursive: true })
    await mkdir(join(base, 'real', 'repo', 'src'), { recursive: true })
    await symlink(join(base, 'real'), join(base, 'link'))
    expect(await findProjectRoot({ cwd: join(base, 'real', 'repo', 'src'), root: join(base, 'link') })).toBe(
      join(base, 'real', 'repo'),
    )
  })

  it('works for a cwd that does not exist', async () => {
    await mkdir(join(base, 'repo', '.git'), { recursive: true })
    expect(await findProjectRoot({ cwd: join(base, 'repo', 'gone', 'away'), root: base })).toBe(
      join(base, 'repo'),
    )
  })
})
