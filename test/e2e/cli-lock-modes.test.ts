import { copyFile, readFile, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, repoRoot, useSandbox, write } from './cli.test-helper.js'

// Lock format version 2 (docs/lock-format.md): one entry per mode, so a
// harness mode is compared with what was locked for it, never with
// sysprompt's own prompt.
useSandbox()

async function linkedRepo(name: string): Promise<string> {
  const dir = await makeGitDir(name)
  await write(join(dir, '.sysprompt', 'template.md'), 'Own words.\n\n[project:instructions]\n')
  await write(join(dir, 'AGENTS.md'), '# Project\n\nRun the tests before you finish.\n')
  await symlink('AGENTS.md', join(dir, 'CLAUDE.md'))
  await write(join(dir, 'sub', 'AGENTS.md'), '# sub\n\nThis package parses input.\n')
  return dir
}

describe('lock entries per mode', () => {
  it('a mode with no entry is said so, naming the --update that adds it, never a false ok', async () => {
    const repo = await linkedRepo('modes-missing')
    expect((await cli(['check', '--update', ...fast], { cwd: repo })).code).toBe(0)
    const [claude, codex] = await Promise.all([
      cli(['check', '--mode', 'claude'], { cwd: repo }),
      cli(['check', '--mode', 'codex'], { cwd: repo }),
    ])
    // Before version 2: claude said CLAUDE.md was newly included and AGENTS.md no longer (one text, through a link); codex said ok.
    for (const [run, mode] of [
      [claude, 'claude'],
      [codex, 'codex'],
    ] as const) {
      expect(run.code).toBe(1)
      expect(run.stdout).not.toMatch(/^ok:/m)
      expect(run.stdout).not.toContain('newly included')
      expect(run.stderr).toContain(`no entry for ${mode}`)
      expect(run.stderr).toContain(`sysprompt check --update --mode ${mode}`)
    }
  }, 120_000)

  it('--update --mode writes that entry only; check compares each entry with its own mode, the harness view included', async () => {
    const repo = await linkedRepo('modes-entries')
    expect((await cli(['check', '--update', ...fast], { cwd: repo })).code).toBe(0)
    const claude = await cli(['check', '--update', '--mode', 'claude', ...fast], { cwd: repo })
    expect(claude.code).toBe(0)
    expect((await cli(['check', '--update', '--mode', 'codex', ...fast], { cwd: repo })).code).toBe(0)
    const lock = JSON.parse(await readFile(join(repo, 'sysprompt.lock'), 'utf8'))
    expect(lock.version).toBe(2)
    const keys = Object.keys(lock.entries)
    expect(keys[0]).toBe('sysprompt')
    expect(keys).toEqual([
      'sysprompt',
      expect.stringMatching(/^claude@\d+\.\d+\.\d+$/),
      expect.stringMatching(/^codex@/),
    ])
    const claudeKey = keys[1]!
    expect(lock.entries[claudeKey].view.files).toEqual(['CLAUDE.md'])
    expect(lock.entries.sysprompt.view.files).toEqual(['AGENTS.md', 'sub/AGENTS.md'].slice(0, 1))
    // The codex and sysprompt prompts agree; what Codex sends (its own framing) is recorded apart.
    expect(lock.entries[keys[2]!].view.hash).not.toBe(lock.entries.sysprompt.view.hash)
    expect(JSON.stringify(lock)).not.toContain(repo)

    const [all, one, asJson] = await Promise.all([
      cli(['check'], { cwd: repo }),
      cli(['check', '--mode', 'claude'], { cwd: repo }),
      cli(['check', '--json'], { cwd: repo }),
    ])
    expect(all.code).toBe(0)
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(3)
    expect(one.code).toBe(0)
    expect(one.stdout).toContain(`${claudeKey} matches its entry`)
    expect(json(asJson).entries.map((e: { key: string }) => e.key)).toEqual(keys)

    // A changed file fails every entry that sends it, each naming its own --update.
    await write(join(repo, 'AGENTS.md'), '# Project\n\nRun the tests before you finish.\nAnd lint.\n')
    const changed = await cli(['check'], { cwd: repo })
    expect(changed.code).toBe(1)
    expect(changed.stdout).toContain(`${claudeKey}: CLAUDE.md changed`)
    expect(changed.stderr).toContain(`sysprompt check --update --mode ${claudeKey}`)
    expect((await cli(['diff', '--lock', '--mode', 'claude'], { cwd: repo })).stdout).toContain('CLAUDE.md')
    // Rewriting one entry keeps the others as they were.
    expect((await cli(['check', '--update', '--mode', 'claude', ...fast], { cwd: repo })).code).toBe(0)
    const after = await cli(['check', '--json'], { cwd: repo })
    expect(json(after).entries.map((e: { key: string; ok: boolean }) => [e.key, e.ok])).toEqual([
      ['sysprompt', false],
      [claudeKey, true],
      [keys[2], false],
    ])
  }, 180_000)

  it('a version 1 lock is read as the sysprompt entry and rewritten as version 2 by the next --update', async () => {
    const repo = await linkedRepo('modes-v1')
    await copyFile(
      join(repoRoot, 'test', 'fixtures', 'lock-v1', 'sysprompt.lock'),
      join(repo, 'sysprompt.lock'),
    )
    const check = await cli(['check'], { cwd: repo })
    expect(check.code).toBe(0)
    expect(check.stderr).toContain('format version 1')
    expect((await cli(['check', '--mode', 'claude'], { cwd: repo })).stderr).toContain('no entry for claude')
    const update = await cli(['check', '--update', '--mode', 'claude', ...fast], { cwd: repo })
    expect(update.code).toBe(0)
    expect(update.stdout).toContain('version 1 to version 2')
    const lock = JSON.parse(await readFile(join(repo, 'sysprompt.lock'), 'utf8'))
    expect(lock.version).toBe(2)
    expect(lock.entries.sysprompt.cwd).toBe('sub')
    expect((await cli(['check'], { cwd: repo })).code).toBe(0)
  }, 120_000)

  it('a hand-edited lock is refused with its file and line and what to do', async () => {
    const repo = await linkedRepo('modes-bad')
    expect((await cli(['check', '--update', ...fast], { cwd: repo })).code).toBe(0)
    expect((await cli(['check', '--update', '--mode', 'codex', ...fast], { cwd: repo })).code).toBe(0)
    const text = await readFile(join(repo, 'sysprompt.lock'), 'utf8')
    const codexKey = /"(codex@[^"]+)"/.exec(text)![1]!
    // The codex entry given twice (JSON.parse would silently keep the last).
    const twice = text.replace(`"${codexKey}": {`, `"${codexKey}": { "hash": "x" },\n    "${codexKey}": {`)
    await write(join(repo, 'sysprompt.lock'), twice)
    const dup = await cli(['check'], { cwd: repo })
    expect(dup.code).toBe(1)
    const line =
      twice.split('\n').findIndex((l, i) => i > 0 && l.includes(`"${codexKey}": {`) && !l.includes('"x"')) + 1
    expect(dup.stderr).toContain(`sysprompt.lock:${line}: the entry "${codexKey}" is given twice`)
    await write(join(repo, 'sysprompt.lock'), text.replace('"version": 2', '"version": 3'))
    const future = await cli(['check'], { cwd: repo })
    expect(future.code).toBe(1)
    expect(future.stderr).toMatch(/sysprompt\.lock:2 has version 3; this sysprompt reads versions 1 and 2/)
    const codexLine = text.split('\n').findIndex((l) => l.includes(`"${codexKey}"`)) + 1
    await write(join(repo, 'sysprompt.lock'), text.replace(/("codex@[^"]+": \{\n\s*"hash": )"[^"]+"/, '$1 7'))
    const shape = await cli(['check'], { cwd: repo })
    expect(shape.stderr).toContain(
      `sysprompt.lock:${codexLine}: entries["${codexKey}"].hash must be a string`,
    )
  }, 120_000)
})
