import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { GitAdapter, GitResult } from '../adapters.js'
import { nodeGitAdapter } from '../adapters.js'
import { type GitDiagnostic, gitResolver } from './git.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sysprompt-git-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** No user or system git config, a fixed identity: the same answers on every machine. */
const isolated: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: isolated })
}

async function makeRepo(): Promise<string> {
  const repo = join(dir, 'repo')
  await mkdir(repo)
  git(repo, 'init', '--quiet', '--initial-branch=main')
  await writeFile(join(repo, 'a.txt'), 'a\n')
  await writeFile(join(repo, 'b.txt'), 'b\n')
  git(repo, 'add', '.')
  git(repo, 'commit', '--quiet', '-m', 'first')
  return repo
}

const resolverAt = (
  cwd: string,
  adapter: GitAdapter = nodeGitAdapter({ env: isolated }),
  timeoutMs = 10_000,
) => gitResolver({ git: adapter, timeoutMs, cwdOf: () => cwd })

const both = ['git:branch', 'git:status']

describe('git resolver with real git', () => {
  it('reads the branch and a clean status', async () => {
    const repo = await makeRepo()
    const values = await resolverAt(repo).resolve(both, {})
    expect(values.get('git:branch')).toBe('main')
    expect(values.get('git:status')).toBe('clean')
  })

  it('follows a branch switch', async () => {
    const repo = await makeRepo()
    git(repo, 'checkout', '--quiet', '-b', 'feature/x')
    expect((await resolverAt(repo).resolve(['git:branch'], {})).get('git:branch')).toBe('feature/x')
  })

  it('names an unborn branch of a repository without commits', async () => {
    const repo = join(dir, 'fresh')
    await mkdir(repo)
    git(repo, 'init', '--quiet', '--initial-branch=trunk')
    expect((await resolverAt(repo).resolve(['git:branch'], {})).get('git:branch')).toBe('trunk')
  })

  it('reports a detached HEAD with its short hash', async () => {
    const repo = await makeRepo()
    const short = git(repo, 'rev-parse', '--short', 'HEAD').trim()
    git(repo, 'checkout', '--quiet', '--detach')
    expect((await resolverAt(repo).resolve(['git:branch'], {})).get('git:branch')).toBe(
      `(detached at ${short})`,
    )
  })

  it('summarises staged, modified, untracked and renamed files', async () => {
    const repo = await makeRepo()
    await writeFile(join(repo, 'a.txt'), 'a changed\n')
    await writeFile(join(repo, 'new one.txt'), 'n\n')
    await writeFile(join(repo, 'line\nbreak.txt'), 'odd name\n')
    git(repo, 'mv', 'b.txt', 'c.txt')
    await writeFile(join(repo, 'staged.txt'), 's\n')
    git(repo, 'add', 'staged.txt')
    await writeFile(join(repo, 'staged.txt'), 's and more\n')
    const values = await resolverAt(repo).resolve(['git:status'], {})
    // staged: c.txt (rename) + staged.txt; modified: a.txt + staged.txt; untracked: two files.
    expect(values.get('git:status')).toBe('2 staged, 2 modified, 2 untracked')
  })

  it('counts a merge conflict', async () => {
    const repo = await makeRepo()
    git(repo, 'checkout', '--quiet', '-b', 'other')
    await writeFile(join(repo, 'a.txt'), 'other\n')
    git(repo, 'commit', '--quiet', '-am', 'other')
    git(repo, 'checkout', '--quiet', 'main')
    await writeFile(join(repo, 'a.txt'), 'main\n')
    git(repo, 'commit', '--quiet', '-am', 'main')
    expect(() => git(repo, 'merge', '--quiet', 'other')).toThrow()
    expect((await resolverAt(repo).resolve(['git:status'], {})).get('git:status')).toBe('1 conflicted')
  })

  it('answers from a subdirectory of the repository', async () => {
    const repo = await makeRepo()
    await mkdir(join(repo, 'src'))
    await writeFile(join(repo, 'src', 'x.ts'), 'x\n')
    const values = await resolverAt(join(repo, 'src')).resolve(both, {})
    expect(values.get('git:branch')).toBe('main')
    expect(values.get('git:status')).toBe('1 untracked')
  })

  it('is absent outside a repository', async () => {
    const values = await resolverAt(dir).resolve(both, {})
    expect(values.get('git:branch')).toBeNull()
    expect(values.get('git:status')).toBeNull()
  })

  it('ignores GIT_DIR inherited from a git hook and answers for its cwd', async () => {
    const repo = await makeRepo()
    const other = join(dir, 'other')
    await mkdir(other)
    git(other, 'init', '--quiet', '--initial-branch=elsewhere')
    const adapter = nodeGitAdapter({ env: { ...isolated, GIT_DIR: join(other, '.git') } })
    expect((await resolverAt(repo, adapter).resolve(['git:branch'], {})).get('git:branch')).toBe('main')
  })

  it('is absent, not an error, for unknown git keys', async () => {
    const repo = await makeRepo()
    expect((await resolverAt(repo).resolve(['git:remote'], {})).get('git:remote')).toBeNull()
  })
})

describe('git resolver when git cannot answer', () => {
  it('is absent when git is not on PATH', async () => {
    const repo = await makeRepo()
    const empty = join(dir, 'empty-bin')
    await mkdir(empty)
    const adapter = nodeGitAdapter({ env: { ...isolated, PATH: empty } })
    expect(await adapter.run(['status'], { cwd: repo, timeoutMs: 10_000 })).toEqual({
      ok: false,
      stdout: '',
      failure: 'missing',
    })
    const values = await resolverAt(repo, adapter).resolve(both, {})
    expect(values.get('git:branch')).toBeNull()
    expect(values.get('git:status')).toBeNull()
  })

  // The test's own timeout, far below the fake git's 60 s, is what fails a hang.
  it('gives up on a hanging git after the timeout, even while its child holds the pipe', {
    timeout: 15_000,
  }, async () => {
    const repo = await makeRepo()
    const bin = join(dir, 'hang-bin')
    await mkdir(bin)
    // A git that never answers: `sleep` inherits stdout, so the pipe stays open after sh is gone.
    await writeFile(join(bin, 'git'), '#!/bin/sh\nsleep 60\n')
    await chmod(join(bin, 'git'), 0o755)
    const adapter = nodeGitAdapter({ env: { ...isolated, PATH: `${bin}:${process.env.PATH ?? ''}` } })
    expect(await adapter.run(['status'], { cwd: repo, timeoutMs: 200 })).toEqual({
      ok: false,
      stdout: '',
      failure: 'timeout',
    })
    const calls: string[][] = []
    const counting: GitAdapter = {
      async run(args, options) {
        calls.push(args)
        return adapter.run(args, options)
      },
    }
    const diagnostics: GitDiagnostic[] = []
    const resolver = gitResolver({
      git: counting,
      timeoutMs: 200,
      cwdOf: () => repo,
      onDiagnostic: (d) => diagnostics.push(d),
    })
    const values = await resolver.resolve(both, {})
    expect(values.get('git:branch')).toBeNull()
    expect(values.get('git:status')).toBeNull()
    // After the first command timed out, nothing else is tried, and the timeout is told.
    expect(calls.map((args) => args[0])).toEqual(['rev-parse'])
    expect(diagnostics).toEqual([
      {
        code: 'git-timeout',
        cwd: repo,
        message: 'git timed out trying to find the repository, so git values are absent',
      },
    ])
  })

  it('maps each adapter failure to absent', async () => {
    for (const failure of ['missing', 'timeout', 'error'] as const) {
      const failing: GitAdapter = {
        run: async (): Promise<GitResult> => ({ ok: false, stdout: '', failure }),
      }
      const values = await resolverAt(dir, failing).resolve(both, {})
      expect([...values.values()]).toEqual([null, null])
    }
  })
})

describe('git resolver runs only what is asked', () => {
  it('runs no git for no git key, one command per key otherwise', async () => {
    const calls: string[][] = []
    const fake: GitAdapter = {
      async run(args) {
        calls.push(args)
        if (args[0] === 'config') return { ok: false, stdout: '', failure: 'error', exitCode: 1 }
        return { ok: true, stdout: args[0] === 'symbolic-ref' ? 'main\n' : '' }
      },
    }
    const resolver = resolverAt(dir, fake)
    await resolver.resolve([], {})
    await resolver.resolve(['git:remote'], {})
    expect(calls).toEqual([])
    // Where the repository is and which drivers its config names come first, then one command per key.
    await resolver.resolve(['git:branch'], {})
    expect(calls.map((a) => a[0])).toEqual(['rev-parse', 'config', 'symbolic-ref'])
    calls.length = 0
    expect((await resolver.resolve(['git:status'], {})).get('git:status')).toBe('clean')
    expect(calls.map((a) => a[0])).toEqual(['rev-parse', 'config', 'status'])
  })

  it('passes the working directory of the context and the timeout', async () => {
    const seen: { cwd: string; timeoutMs: number }[] = []
    const fake: GitAdapter = {
      async run(_args, options) {
        seen.push(options)
        return { ok: true, stdout: 'main\n' }
      },
    }
    const resolver = gitResolver({ git: fake, timeoutMs: 1234, cwdOf: (ctx) => String(ctx.cwd) })
    await resolver.resolve(['git:branch'], { cwd: '/somewhere' })
    expect(seen.length).toBeGreaterThan(0)
    expect(new Set(seen.map((s) => JSON.stringify(s)))).toEqual(
      new Set([JSON.stringify({ cwd: '/somewhere', timeoutMs: 1234 })]),
    )
  })
})
