import { cp, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, env, fast, json, makeRepo, sandbox, useSandbox, write } from './cli.test-helper.js'

// Locks hold on every checkout: machine values pinned, the working directory
// recorded relative to the root, and a change blamed on the file it is in.
useSandbox()

// Each test runs the built command several times; a busy 2-core machine needs more than the default 30 s.

describe('portable locks', () => {
  it('a lock written in one checkout passes in another, from any directory, and records its cwd', async () => {
    const repo = await makeRepo('portable-a')
    const update = await cli(['check', '--update', '--cwd', 'sub', ...fast], { cwd: repo })
    expect(update.code).toBe(0)
    expect(update.stderr).toBe('')
    const lock = JSON.parse(await readFile(join(repo, 'sysprompt.lock'), 'utf8')).entries.sysprompt
    expect(lock.cwd).toBe('sub')
    expect(lock.pinned).toEqual(expect.arrayContaining(['prompt:cwd', 'system:hostname']))
    const template = lock.sections.find((s: { name: string }) => s.name === 'template')
    expect(template.files.map((f: { path: string }) => f.path)).toEqual([
      'AGENTS.md',
      'docs/notes.md',
      'sub/AGENTS.md',
    ])
    expect(JSON.stringify(lock)).not.toContain(sandbox.base)

    // Another checkout at another absolute path, checked from its root.
    const other = join(sandbox.base, 'elsewhere', 'portable-b')
    await cp(repo, other, { recursive: true })
    const fromRoot = await cli(['check'], { cwd: other })
    expect(fromRoot.code).toBe(0)
    expect(fromRoot.stderr).toContain('the working directory sysprompt.lock was written for')
    expect(fromRoot.stderr).toContain('sub')
    expect((await cli(['check'], { cwd: join(other, 'sub') })).code).toBe(0)
    expect((await cli(['diff', '--lock'], { cwd: other })).code).toBe(0)
    // `show` keeps the real working directory.
    expect((await cli(['show', '--cwd', 'sub', ...fast], { cwd: other })).stdout).toContain(
      join(other, 'sub'),
    )
  }, 120_000)

  it('a line added to an instruction file is blamed on that file and its lines, not on the template', async () => {
    const repo = await makeRepo('blame')
    expect((await cli(['check', '--update', '--cwd', 'sub', ...fast], { cwd: repo })).code).toBe(0)
    await write(join(repo, 'sub', 'AGENTS.md'), '# sub\n\nThis package parses input.\nOne more line.\n')
    const [check, checkJson, diff, diffJson] = await Promise.all([
      cli(['check'], { cwd: repo }),
      cli(['check', '--json'], { cwd: repo }),
      cli(['diff', '--lock'], { cwd: repo }),
      cli(['diff', '--lock', '--json'], { cwd: repo }),
    ])
    expect(check.code).toBe(1)
    expect(check.stdout).toMatch(/sub\/AGENTS\.md changed, at prompt lines \d+–\d+/)
    expect(check.stdout).not.toContain('section "template" (from')
    expect(json(checkJson).differences).toEqual([
      expect.objectContaining({ section: 'template', file: 'sub/AGENTS.md', kind: 'changed' }),
    ])
    expect(diff.stdout).toMatch(
      /first changed section: template, in sub\/AGENTS\.md \(prompt lines \d+–\d+\)/,
    )
    expect(json(diffJson)).toMatchObject({ section: 'template', file: 'sub/AGENTS.md' })

    // An import changed: the import is named, not the file importing it.
    expect((await cli(['check', '--update', '--cwd', 'sub', ...fast], { cwd: repo })).code).toBe(0)
    await write(join(repo, 'docs', 'notes.md'), 'Notes: keep functions very short.\n')
    const imported = json(await cli(['check', '--json'], { cwd: repo }))
    expect(imported.differences.map((d: { file?: string }) => d.file)).toEqual(['docs/notes.md'])

    // A change of the template's own text names the section.
    await write(join(repo, '.sysprompt', 'template.md'), 'Own words.\n\n[project:instructions]\n')
    const own = await cli(['check'], { cwd: repo })
    expect(own.stdout).toContain('section "template"')
  }, 120_000)

  it('check --update warns, naming the section and the value, when the prompt still holds a machine value', async () => {
    const repo = await makeRepo('machine')
    await write(join(repo, 'AGENTS.md'), `# Project\n\nThe checkout lives in ${repo}/src.\n`)
    const update = await cli(['check', '--update', ...fast], { cwd: repo })
    expect(update.code).toBe(0)
    expect(update.stderr).toContain('sysprompt: warning: section "template" holds the project root')
    expect(update.stderr).toContain(JSON.stringify(repo))
    const asJson = json(await cli(['check', '--update', '--json', ...fast], { cwd: repo }))
    expect(asJson.machineValues).toEqual([{ section: 'template', what: 'project root', value: repo }])
    // Without such a value, nothing is said.
    await write(join(repo, 'AGENTS.md'), '# Project\n\nPortable words only.\n')
    expect((await cli(['check', '--update', ...fast], { cwd: repo })).stderr).toBe('')
  }, 120_000)

  it('check --update run as root does not take "package root" for the user name, and still finds /home/root', async () => {
    const repo = await makeRepo('as-root')
    await write(
      join(repo, 'AGENTS.md'),
      '# Project\n\nRun the scripts from the package root; the root README says how.\n',
    )
    const asRoot = { cwd: repo, env: env({ USER: 'root' }) }
    expect((await cli(['check', '--update', ...fast], asRoot)).stderr).toBe('')
    await write(join(repo, 'AGENTS.md'), '# Project\n\nThe cache lives in /home/root/.cache.\n')
    const leaked = await cli(['check', '--update', ...fast], asRoot)
    expect(leaked.stderr).toContain('section "template" holds the user name "root"')
  }, 120_000)
})
