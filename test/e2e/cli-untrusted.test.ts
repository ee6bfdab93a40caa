import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { cli, env, fast, makeGitDir, sandbox, useSandbox, write } from './cli.test-helper.js'

// The attacks of an untrusted repository on the command line, on real files
// and a real git: nothing outside the project is printed or written, no
// command the repository's config names runs, nothing hangs.

useSandbox()
// Each test starts the CLI up to three times: room for a busy machine (a hang still fails, after this).
vi.setConfig({ testTimeout: 120_000 })

const SECRET = 'PRIVATE KEY 7f3a do not print'

/** A secret outside every project: the user's private key. */
async function outsideSecret(): Promise<string> {
  const key = join(sandbox.home, '.ssh', 'id_rsa')
  await write(key, `-----BEGIN OPENSSH ${SECRET}-----\n`)
  return key
}

describe('a hostile template file', () => {
  it('never prints the target of a template linked outside the project', async () => {
    const repo = await makeGitDir('linked-template')
    await mkdir(join(repo, '.sysprompt'))
    await symlink(await outsideSecret(), join(repo, '.sysprompt', 'template.md'))
    const r = await cli(['show', ...fast], { cwd: repo })
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).not.toContain(SECRET)
    expect(r.stderr).toContain('.sysprompt/template.md')
    expect(r.stderr).toContain('leads outside the project')
  })

  it('never prints the environment through a link to /proc/self/environ', async () => {
    const repo = await makeGitDir('environ-template')
    await mkdir(join(repo, '.sysprompt'))
    await symlink('/proc/self/environ', join(repo, '.sysprompt', 'template.md'))
    const r = await cli(['show', ...fast], { cwd: repo, env: env({ API_TOKEN: 'tok-environ-123' }) })
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).not.toContain('tok-environ-123')
  })

  it('refuses a binary template and one over --max-file-bytes, with the reason', async () => {
    const repo = await makeGitDir('binary-template')
    await mkdir(join(repo, '.sysprompt'))
    await writeFile(
      join(repo, '.sysprompt', 'template.md'),
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0]),
    )
    const binary = await cli(['show', ...fast], { cwd: repo })
    expect(binary.code).toBe(1)
    expect(binary.stdout).not.toContain('ELF')
    expect(binary.stderr).toContain('is binary')
    await writeFile(join(repo, '.sysprompt', 'template.md'), `Big.\n${'x'.repeat(1 << 20)}\n`)
    const big = await cli(['show', ...fast], { cwd: repo })
    expect(big.code).toBe(1)
    expect(big.stderr).toContain('is larger than 1 MiB')
    const raised = await cli(['show', ...fast, '--max-file-bytes', String(2 << 20)], { cwd: repo })
    expect(raised.code).toBe(0)
    expect(raised.stdout.startsWith('Big.')).toBe(true)
  })

  it('gives a --template named on the command line the same checks, wherever it lives', async () => {
    const fifo = join(sandbox.base, 'template-fifo')
    execFileSync('mkfifo', [fifo])
    const r = await cli(['show', ...fast, '--template', fifo])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('not a regular file')
    const binary = join(sandbox.base, 'binary-template.md')
    await writeFile(binary, Buffer.from([1, 2, 0, 3]))
    const b = await cli(['show', ...fast, '--template', binary])
    expect(b.code).toBe(1)
    expect(b.stderr).toContain('is binary')
    const elsewhere = join(sandbox.base, 'own-template.md')
    await writeFile(elsewhere, 'My own words.\n')
    const ok = await cli(['show', ...fast, '--template', elsewhere])
    expect(ok.code).toBe(0)
    expect(ok.stdout.trimEnd()).toBe('My own words.')
  })
})

describe('a hostile sysprompt.lock', () => {
  it('check --update never writes through a lock linked outside the project', async () => {
    const repo = await makeGitDir('linked-lock')
    const victim = join(sandbox.base, 'victim.txt')
    await writeFile(victim, 'precious\n')
    await symlink(victim, join(repo, 'sysprompt.lock'))
    const r = await cli(['check', '--update', ...fast], { cwd: repo })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('symbolic link')
    expect(await readFile(victim, 'utf8')).toBe('precious\n')
    expect((await readdir(repo)).sort()).toEqual(['.git', 'sysprompt.lock'])
  })

  it('check does not hang on a FIFO lock, nor read /dev/zero, and says why', async () => {
    const repo = await makeGitDir('fifo-lock')
    execFileSync('mkfifo', [join(repo, 'sysprompt.lock')])
    const fifo = await cli(['check', ...fast], { cwd: repo })
    expect(fifo.code).toBe(1)
    expect(fifo.stderr).toContain('not a regular file')
    const zero = await makeGitDir('zero-lock')
    await symlink('/dev/zero', join(zero, 'sysprompt.lock'))
    const z = await cli(['check', ...fast], { cwd: zero })
    expect(z.code).toBe(1)
    expect(z.stderr).not.toContain('no sysprompt.lock')
    expect(z.stderr).toMatch(/leads outside the project|not a regular file/)
  })

  it('never echoes the bytes of a lock that is not JSON', async () => {
    const repo = await makeGitDir('garbage-lock')
    await writeFile(join(repo, 'sysprompt.lock'), 'AWS_SECRET=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzzz\n')
    const r = await cli(['check', ...fast], { cwd: repo })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('is not valid JSON')
    expect(r.stderr).not.toContain('AWS_SECRET')
  })
})

describe('init never writes through a link', () => {
  it('refuses a .sysprompt that is a link to elsewhere and writes nothing there', async () => {
    const repo = await makeGitDir('linked-init')
    const elsewhere = join(sandbox.base, 'elsewhere-dir')
    await mkdir(elsewhere)
    await symlink(elsewhere, join(repo, '.sysprompt'))
    const r = await cli(['init'], { cwd: repo })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('symbolic link')
    expect(await readdir(elsewhere)).toEqual([])
  })
})

describe('a hostile git configuration', () => {
  it('runs neither fsmonitor nor a clean filter on a plain show of [git:status]', async () => {
    const repo = await makeGitDir('hostile-git')
    const markers = join(sandbox.base, 'hostile-markers')
    await mkdir(markers)
    const script = async (name: string) => {
      const path = join(sandbox.base, `hostile-${name}`)
      await writeFile(path, `#!/bin/sh\ntouch '${join(markers, name)}'\ncat\n`)
      await chmod(path, 0o755)
      return path
    }
    const gitEnv = { ...env(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
    const run = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv })
    await writeFile(join(repo, 'notes.txt'), 'same\n')
    run('add', '.')
    run('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qm', 'first')
    run('config', 'core.fsmonitor', await script('fsmonitor'))
    run('config', 'filter.evil.clean', await script('clean'))
    await writeFile(join(repo, '.gitattributes'), '*.txt filter=evil\n')
    await writeFile(join(repo, 'notes.txt'), 'same\n')
    execFileSync('touch', ['-d', '2001-01-01', join(repo, 'notes.txt')])
    await write(join(repo, '.sysprompt', 'template.md'), 'Status: [git:status]\n')
    const r = await cli(['show', ...fast], { cwd: repo })
    expect(r.code).toBe(0)
    expect(await readdir(markers)).toEqual([])
    expect(r.stdout.trimEnd()).toBe('Status: 2 untracked')
  })
})

describe('file: and imports keep off secret-bearing files', () => {
  it('leaves [file:.git/config] and an @.env import out, says why in lint, and --allow-file opts back in', async () => {
    const repo = await makeGitDir('deny-list')
    execFileSync(
      'git',
      ['config', 'remote.origin.url', 'https://user:ghp_tokentokentoken@example.com/x.git'],
      {
        cwd: repo,
      },
    )
    await write(join(repo, '.env'), 'DATABASE_PASSWORD=hunter2-secret\n')
    await write(join(repo, 'AGENTS.md'), '# Rules\n\n@.env\n')
    await write(join(repo, '.sysprompt', 'template.md'), '[file:.git/config]\n[project:instructions]\n')
    const shown = await cli(['show', ...fast], { cwd: repo })
    expect(shown.code).toBe(0)
    expect(shown.stdout).not.toContain('ghp_tokentokentoken')
    expect(shown.stdout).not.toContain('hunter2-secret')
    const lint = await cli(['lint', ...fast, '--json'], { cwd: repo })
    const findings = JSON.parse(lint.stdout) as { code: string; message: string }[]
    const absent = findings.find((f) => f.code === 'file-absent')
    expect(absent?.message).toContain('deny-list')
    expect(findings.some((f) => f.code === 'import-denied')).toBe(true)
    const allowed = await cli(['show', ...fast, '--allow-file', '.git/config'], { cwd: repo })
    expect(allowed.stdout).toContain('ghp_tokentokentoken')
  })
})
