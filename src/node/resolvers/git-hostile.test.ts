import { execFileSync } from 'node:child_process'
import { appendFile, chmod, mkdir, mkdtemp, readdir, realpath, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { nodeGitAdapter } from '../adapters.js'
import { type GitDiagnostic, gitResolver } from './git.js'

/**
 * A hostile repository: its config names a command in every place git
 * looks for one, each a script that leaves a marker file when it runs. The
 * resolver must still answer, and no marker may ever appear.
 */
let base: string
let markers: string
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-hostile-')))
  markers = join(base, 'markers')
  await mkdir(markers)
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

const setupEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: setupEnv })

/** A script that records its name in the markers directory (and, for a filter, passes its input through). */
async function marker(name: string): Promise<string> {
  const path = join(base, `cmd-${name}`)
  await writeFile(path, `#!/bin/sh\ntouch '${join(markers, name)}'\ncat\n`)
  await chmod(path, 0o755)
  return path
}

async function hostileRepo(): Promise<string> {
  const repo = join(base, 'repo')
  await mkdir(repo)
  git(repo, 'init', '--quiet', '--initial-branch=main')
  await writeFile(join(repo, 'a.txt'), 'a\n')
  await writeFile(join(repo, 'b.bin'), 'b\n')
  await writeFile(join(repo, 'same.txt'), 'same\n')
  git(repo, 'add', '.')
  git(repo, 'commit', '--quiet', '-m', 'first')
  // Configured after the commit, so only the resolver's git could run them.
  const hooks = join(repo, 'evil-hooks')
  await mkdir(hooks)
  for (const hook of [
    'post-index-change',
    'pre-commit',
    'post-checkout',
    'reference-transaction',
    'fsmonitor-watchman',
  ]) {
    await writeFile(join(hooks, hook), `#!/bin/sh\ntouch '${join(markers, `hook-${hook}`)}'\n`)
    await chmod(join(hooks, hook), 0o755)
  }
  await appendFile(
    join(repo, '.git', 'config'),
    [
      '[core]',
      `\tfsmonitor = ${await marker('fsmonitor')}`,
      `\thooksPath = ${hooks}`,
      `\tpager = ${await marker('core-pager')}`,
      `\tsshCommand = ${await marker('ssh')}`,
      `\taskPass = ${await marker('askpass')}`,
      '[pager]',
      `\tstatus = ${await marker('pager-status')}`,
      '[filter "evil"]',
      `\tclean = ${await marker('filter-clean')}`,
      `\tsmudge = ${await marker('filter-smudge')}`,
      '\trequired = true',
      '[filter "proc"]',
      `\tprocess = ${await marker('filter-process')}`,
      '[diff "evil"]',
      `\ttextconv = ${await marker('textconv')}`,
      `\tcommand = ${await marker('diff-command')}`,
      '[diff]',
      `\texternal = ${await marker('diff-external')}`,
      '[alias]',
      `\tst = !${await marker('alias')}`,
      '[credential]',
      `\thelper = !${await marker('credential')}`,
      '',
    ].join('\n'),
  )
  await writeFile(join(repo, '.gitattributes'), '*.txt filter=evil diff=evil\n*.bin filter=proc\n')
  // Changed content and stat: status must look at both files again, which is when filters run.
  await writeFile(join(repo, 'a.txt'), 'a, changed\n')
  await writeFile(join(repo, 'b.bin'), 'b, changed\n')
  // Same size, new mtime: only hashing the content (through the clean filter) tells whether it changed.
  await writeFile(join(repo, 'same.txt'), 'same\n')
  await utimes(join(repo, 'same.txt'), new Date(2001, 0, 1), new Date(2001, 0, 1))
  return repo
}

describe('git runs no command a hostile repository names', () => {
  it('answers branch and status while no configured command runs', async () => {
    const repo = await hostileRepo()
    const diagnostics: GitDiagnostic[] = []
    const resolver = gitResolver({
      git: nodeGitAdapter({ env: { PATH: process.env.PATH } }),
      timeoutMs: 20_000,
      cwdOf: () => repo,
      root: repo,
      realpath,
      onDiagnostic: (d) => diagnostics.push(d),
    })
    const values = await resolver.resolve(['git:branch', 'git:status'], {})
    expect(await readdir(markers)).toEqual([])
    expect(values.get('git:branch')).toBe('main')
    expect(values.get('git:status')).toBe('2 modified, 2 untracked')
    expect(diagnostics).toEqual([])
  })

  it('reads no user or system config (a global fsmonitor in $HOME/.gitconfig)', async () => {
    const repo = await hostileRepo()
    const home = join(base, 'home')
    await mkdir(join(home, '.config', 'git'), { recursive: true })
    const global = `[core]\n\tfsmonitor = ${await marker('global-fsmonitor')}\n[status]\n\tshowUntrackedFiles = no\n`
    await writeFile(join(home, '.gitconfig'), global)
    await writeFile(join(home, '.config', 'git', 'config'), global)
    const resolver = gitResolver({
      git: nodeGitAdapter({
        env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
      }),
      timeoutMs: 20_000,
      cwdOf: () => repo,
      root: repo,
      realpath,
    })
    const values = await resolver.resolve(['git:status'], {})
    expect(await readdir(markers)).toEqual([])
    // The user's showUntrackedFiles=no would have hidden the untracked files (.gitattributes, the hooks).
    expect(values.get('git:status')).toBe('2 modified, 2 untracked')
  })
})

describe('git refuses a repository redirected outside the root', () => {
  const refusedBy = async (repo: string, root: string) => {
    const diagnostics: GitDiagnostic[] = []
    const calls: string[][] = []
    const adapter = nodeGitAdapter({ env: { PATH: process.env.PATH } })
    const resolver = gitResolver({
      git: {
        run: (args, options) => {
          calls.push(args)
          return adapter.run(args, options)
        },
      },
      timeoutMs: 20_000,
      cwdOf: () => repo,
      root,
      realpath,
      onDiagnostic: (d) => diagnostics.push(d),
    })
    const values = await resolver.resolve(['git:branch', 'git:status'], {})
    return { values: [...values.values()], diagnostics, commands: calls.map((a) => a[0]) }
  }

  it('refuses core.worktree pointing elsewhere', async () => {
    const repo = join(base, 'repo')
    const elsewhere = join(base, 'elsewhere')
    await mkdir(repo)
    await mkdir(elsewhere)
    git(repo, 'init', '--quiet', '--initial-branch=main')
    git(repo, 'config', 'core.worktree', elsewhere)
    const { values, diagnostics, commands } = await refusedBy(repo, repo)
    expect(values).toEqual([null, null])
    expect(commands).toEqual(['rev-parse'])
    expect(diagnostics).toHaveLength(1)
    expect(diagnostics[0]!.code).toBe('git-refused')
    expect(diagnostics[0]!.message).toContain(elsewhere)
  })

  it('refuses a .git file whose gitdir lies outside the root', async () => {
    const outside = join(base, 'outside-repo')
    await mkdir(outside)
    git(outside, 'init', '--quiet', '--initial-branch=main')
    const project = join(base, 'project')
    await mkdir(project)
    await writeFile(join(project, '.git'), `gitdir: ${join(outside, '.git')}\n`)
    git(outside, 'config', 'core.worktree', project)
    const { values, diagnostics } = await refusedBy(project, project)
    expect(values).toEqual([null, null])
    expect(diagnostics.map((d) => d.code)).toEqual(['git-refused'])
    expect(diagnostics[0]!.message).toContain('git directory')
  })

  it('answers for a project root inside an ordinary repository, and says nothing outside one', async () => {
    const repo = join(base, 'repo')
    await mkdir(join(repo, 'packages', 'api'), { recursive: true })
    git(repo, 'init', '--quiet', '--initial-branch=main')
    const inner = await refusedBy(join(repo, 'packages', 'api'), join(repo, 'packages', 'api'))
    expect(inner.values).toEqual(['main', 'clean'])
    expect(inner.diagnostics).toEqual([])
    const none = join(base, 'plain')
    await mkdir(none)
    const plain = await refusedBy(none, none)
    expect(plain.values).toEqual([null, null])
    expect(plain.diagnostics).toEqual([])
  })
})
