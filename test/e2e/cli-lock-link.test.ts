import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { cli, fast, makeGitDir, sandbox, useSandbox, write } from './cli.test-helper.js'

// A lock's working directory is the real directory's path inside the
// project: a link in the repository that points outside must not make
// `check` (or `diff --lock`) build the prompt for the outside directory.

useSandbox()
vi.setConfig({ testTimeout: 120_000 })

const OUTSIDE = 'Outside instructions 5c1e: never part of this project.'

/** A repository with `link` → a directory outside it (holding its own AGENTS.md), and `alias` → `packages/api` inside it. */
async function linkedRepo(name: string): Promise<string> {
  const repo = await makeGitDir(name)
  await write(join(repo, 'AGENTS.md'), '# Project\n\nRun the tests.\n')
  await write(join(repo, 'packages', 'api', 'AGENTS.md'), '# API\n\nKeep handlers small.\n')
  const outside = join(sandbox.base, `${name}-outside`)
  await mkdir(outside, { recursive: true })
  await write(join(outside, 'AGENTS.md'), `${OUTSIDE}\n`)
  await symlink(outside, join(repo, 'link'))
  await symlink(join(repo, 'packages', 'api'), join(repo, 'alias'))
  return repo
}

const readLock = async (repo: string) => JSON.parse(await readFile(join(repo, 'sysprompt.lock'), 'utf8'))
/** The lock with sysprompt's own entry recording another `cwd`. */
const withCwd = (lock: { entries: { sysprompt: object } }, cwd: string) => ({
  ...lock,
  entries: { ...lock.entries, sysprompt: { ...lock.entries.sysprompt, cwd } },
})

describe('a lock and links', () => {
  it('check refuses a committed lock whose cwd leads outside the project through a link, and reads nothing there', async () => {
    const repo = await linkedRepo('lock-cwd-link')
    expect((await cli(['check', '--update', ...fast], { cwd: repo })).code).toBe(0)
    const lock = await readLock(repo)
    await writeFile(join(repo, 'sysprompt.lock'), JSON.stringify(withCwd(lock, 'link'), null, 2))
    for (const args of [['check'], ['check', '--json'], ['diff', '--lock']]) {
      const r = await cli(args, { cwd: repo })
      expect(r.code).toBe(1)
      expect(r.stdout + r.stderr).not.toContain(OUTSIDE)
      expect(r.stderr).toContain(
        'sysprompt.lock was written for the working directory link, which leads outside the project',
      )
      expect(r.stderr).toContain('run `sysprompt check --update` from the directory the prompt is for')
    }
  })

  it('a link to a directory inside the project is recorded as the real directory, and checks', async () => {
    const repo = await linkedRepo('lock-alias')
    const update = await cli(['check', '--update', '--cwd', 'alias', ...fast], { cwd: repo })
    expect(update.code).toBe(0)
    expect((await readLock(repo)).entries.sysprompt.cwd).toBe('packages/api')
    const [fromRoot, fromAlias] = await Promise.all([
      cli(['check'], { cwd: repo }),
      cli(['check', '--cwd', 'alias'], { cwd: repo }),
    ])
    expect(fromRoot.code).toBe(0)
    expect(fromRoot.stderr).toContain('checking the prompt for packages/api')
    expect(fromAlias.code).toBe(0)
    expect(fromAlias.stderr).toBe('')
    // A lock naming the link is checked for the link's real directory.
    await writeFile(join(repo, 'sysprompt.lock'), JSON.stringify(withCwd(await readLock(repo), 'alias')))
    const viaLink = await cli(['check'], { cwd: repo })
    expect(viaLink.code).toBe(0)
    expect(viaLink.stderr).toContain('checking the prompt for packages/api')
  })
})
