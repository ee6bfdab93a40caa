import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProjectError } from './errors.js'
import { projectRoot } from './root.js'

let dir: string
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-root-')))
  await mkdir(join(dir, 'repo', '.git'), { recursive: true })
  await mkdir(join(dir, 'repo', 'examples', 'demo', '.sysprompt'), { recursive: true })
  await mkdir(join(dir, 'repo', 'examples', 'demo', 'pkg', 'src'), { recursive: true })
  await mkdir(join(dir, 'repo', 'lib'), { recursive: true })
  await mkdir(join(dir, 'worktree'), { recursive: true })
  await writeFile(join(dir, 'worktree', '.git'), 'gitdir: elsewhere\n')
  await mkdir(join(dir, 'loose'), { recursive: true })
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('projectRoot', () => {
  it('takes the nearest ancestor holding .sysprompt/ or .git', async () => {
    expect(await projectRoot(join(dir, 'repo', 'examples', 'demo', 'pkg', 'src'), undefined)).toBe(
      join(dir, 'repo', 'examples', 'demo'),
    )
    expect(await projectRoot(join(dir, 'repo', 'lib'), undefined)).toBe(join(dir, 'repo'))
    expect(await projectRoot(join(dir, 'worktree'), undefined)).toBe(join(dir, 'worktree'))
  })

  it('uses --root when given, and refuses a working directory outside it', async () => {
    expect(await projectRoot(join(dir, 'repo', 'lib'), join(dir, 'repo', 'lib'))).toBe(
      join(dir, 'repo', 'lib'),
    )
    await expect(projectRoot(join(dir, 'loose'), join(dir, 'repo'))).rejects.toBeInstanceOf(ProjectError)
  })
})
