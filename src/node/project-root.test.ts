import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
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

  it('falls back to the configured root when no ancestor holds .git', async () => {
    // The real disk above the temp dir is not ours to control: a file system without any `.git`.
    const stats: string[] = []
    const fs = {
      ...nodeAdapters().fs,
      stat: async (path: string) => {
        stats.push(path)
        throw new Error(`ENOENT: ${path}`)
      },
    }
    expect(await findProjectRoot({ cwd: '/srv/a/b', root: '/configured', fs })).toBe('/configured')
    expect(stats).toEqual(['/srv/a/b/.git', '/srv/a/.git', '/srv/.git', '/.git'])
  })

  it('works for a cwd that does not exist', async () => {
    await mkdir(join(base, 'repo', '.git'), { recursive: true })
    expect(await findProjectRoot({ cwd: join(base, 'repo', 'gone', 'away'), root: base })).toBe(
      join(base, 'repo'),
    )
  })
})
