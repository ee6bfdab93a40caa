import { execFileSync } from 'node:child_process'
import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, oneErrorLine, useSandbox, write } from './cli.test-helper.js'

// The cross-convention rule lint and `check --same` of the built CLI, on real git repositories.
useSandbox()

describe('lint across conventions', () => {
  it('reports each convention problem with file:line:col, and harness differences for --modes', async () => {
    const repo = await makeGitDir('lint-conventions')
    await write(join(repo, 'AGENTS.md'), '# Shared\n\nBe brief.\n')
    await write(join(repo, 'CLAUDE.md'), 'AGENTS.md\n')
    await write(join(repo, 'src', 'a.ts'), 'x\n')
    await write(
      join(repo, '.claude', 'rules', 'ts.md'),
      '---\nglobs: src/**/*.ts\nalwaysApply: false\n---\nTS.\n',
    )
    await write(join(repo, '.cursor', 'rules', 'style.md'), 'Style.\n')
    await write(join(repo, '.cursor', 'rules', 'dead.mdc'), '---\nglobs: ["lib/**"]\n---\nDead.\n')
    await write(
      join(repo, '.github', 'instructions', 'a.instructions.md'),
      '---\napplyTo: ["src/**"]\n---\nA.\n',
    )
    await symlink('../AGENTS.md', join(repo, '.github', 'copilot-instructions.md'))
    execFileSync('git', ['-C', repo, 'add', '-A'])
    const r = await cli(['lint', '--modes', 'codex,copilot', ...fast], { cwd: repo })
    expect(r.code, r.stderr).toBe(0)
    for (const [where, code] of [
      ['.claude/rules/ts.md:2:1', 'foreign-front-matter'],
      ['.cursor/rules/style.md:1:1', 'md-not-mdc'],
      ['.cursor/rules/dead.mdc:2:1', 'glob-matches-nothing'],
      ['.github/instructions/a.instructions.md:2:1', 'applyto-list'],
      ['CLAUDE.md:1:1', 'text-not-symlink'],
      ['.github/copilot-instructions.md:1:1', 'loaded-twice'],
    ] as const) {
      expect(
        r.stdout.split('\n').some((l) => l.startsWith(where) && l.includes(`[${code}]`)),
        `${where} ${code}`,
      ).toBe(true)
    }
    // Without --modes (and no .sysprompt/config), harness differences are not a finding.
    const plain = await cli(['lint', '--json', ...fast], { cwd: repo })
    const found = json(plain) as { code: string }[]
    expect(found.map((f) => f.code)).not.toContain('harnesses-differ')
    expect(found.map((f) => f.code)).toContain('foreign-front-matter')
    const named = await cli(['lint', '--json', '--modes', 'codex,claude', ...fast], { cwd: repo })
    expect((json(named) as { code: string }[]).map((f) => f.code)).toContain('harnesses-differ')
  })
})

describe('check --same', () => {
  it('passes when the harnesses read the same texts, and fails naming the path and the first differing file', async () => {
    const repo = await makeGitDir('same')
    await write(join(repo, 'AGENTS.md'), '# Shared\n\nBe brief.\n')
    await symlink('AGENTS.md', join(repo, 'CLAUDE.md'))
    await write(join(repo, 'src', 'a.ts'), 'x\n')
    const same = await cli(['check', '--same', 'claude,codex,copilot', ...fast], { cwd: repo })
    expect(same.code, same.stderr).toBe(0)
    expect(same.stdout).toContain('ok: claude, codex, copilot load the same instructions')
    await write(
      join(repo, '.github', 'instructions', 'ts.instructions.md'),
      '---\napplyTo: "src/**"\n---\nTS only for Copilot.\n',
    )
    const atStart = await cli(['check', '--same', 'claude,codex,copilot', ...fast], { cwd: repo })
    expect(atStart.code).toBe(0)
    const differs = await cli(['check', '--same', 'claude,codex,copilot', '--path', 'src/a.ts', ...fast], {
      cwd: repo,
    })
    expect(differs.code).toBe(1)
    oneErrorLine(differs)
    expect(differs.stderr).toContain(
      'for src/a.ts, copilot loads the text of .github/instructions/ts.instructions.md, which claude does not see',
    )
    const data = await cli(['check', '--same', 'codex,copilot', '--path', 'src/a.ts', '--json', ...fast], {
      cwd: repo,
    })
    expect(json(data)).toMatchObject({
      ok: false,
      modes: ['codex', 'copilot'],
      paths: [{ path: 'src/a.ts', same: false, difference: { has: 'copilot', lacks: 'codex' } }],
    })
  })

  it('refuses a single harness and --update together with one line', async () => {
    const repo = await makeGitDir('same-usage')
    const one = await cli(['check', '--same', 'claude'], { cwd: repo })
    expect(one.code).toBe(2)
    oneErrorLine(one)
    const both = await cli(['check', '--same', 'claude,codex', '--update'], { cwd: repo })
    expect(both.code).toBe(2)
    oneErrorLine(both)
  })
})
