import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, oneErrorLine, useSandbox, write } from './cli.test-helper.js'

// `explain` states the harness's own rule, with the file's place, and what each --path did;
// advice names a flag that works where it is printed (issue 31, finding 9).
useSandbox()

let repo = ''
beforeAll(async () => {
  repo = await makeGitDir('explain-advice')
  await write(join(repo, 'AGENTS.md'), '# Agents\n\nUse pnpm.\n')
  await symlink('AGENTS.md', join(repo, 'CLAUDE.md'))
  // A rule outside .cursor/rules/: Cursor never loads it, whatever its front matter says.
  await write(join(repo, 'docs', '.cursor', 'rules.mdc'), '---\nalwaysApply: true\n---\nDocs rule.\n')
  await write(join(repo, '.cursor', 'rules', 'ts.mdc'), '---\nglobs: src/**/*.ts\n---\nTS rule.\n')
  await write(join(repo, 'src', 'a.ts'), 'export {}\n')
  await write(join(repo, 'README.md'), '# Readme\n')
})

describe('explain', () => {
  it("names the harness's rule and the file's actual place for a misplaced rule", async () => {
    const r = await cli(['explain', 'docs/.cursor/rules.mdc', '--mode', 'cursor'], { cwd: repo })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      /^docs\/\.cursor\/rules\.mdc: skipped: Cursor reads project rules only as \.mdc files inside a \.cursor\/rules\/ directory, and only \.cursorrules, AGENTS\.md besides/,
    )
    expect(r.stdout).toContain(
      'docs/.cursor/rules.mdc is in docs/.cursor/, not inside a .cursor/rules/ directory',
    )
    expect(r.stdout).not.toContain('reads only .cursorrules')
  })

  it('says that CLAUDE.md is a link to AGENTS.md instead of a circular reason', async () => {
    const r = await cli(['explain', 'AGENTS.md', '--mode', 'claude'], { cwd: repo })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(
      'CLAUDE.md is a link to AGENTS.md: Claude Code loads this text once, through CLAUDE.md',
    )
    expect(r.stdout).not.toContain('only when no CLAUDE.md exists')
  })

  it('says the status once, and whether each --path matched, with the pattern', async () => {
    const [none, two, data] = await Promise.all([
      cli(['explain', '.cursor/rules/ts.mdc', '--mode', 'cursor'], { cwd: repo }),
      cli(
        ['explain', '.cursor/rules/ts.mdc', '--mode', 'cursor', '--path', 'src/a.ts', '--path', 'README.md'],
        {
          cwd: repo,
        },
      ),
      cli(['explain', '.cursor/rules/ts.mdc', '--mode', 'cursor', '--path', 'README.md', '--json'], {
        cwd: repo,
      }),
    ])
    expect(none.stdout).toMatch(
      /^\.cursor\/rules\/ts\.mdc: on-demand: when the agent reads a file matching src\/\*\*\/\*\.ts/,
    )
    expect(none.stdout).not.toMatch(/on.demand: on demand/)
    expect(two.stdout).toContain('\n  --path src/a.ts matches src/**/*.ts: loaded with its tool result\n')
    expect(two.stdout).toContain('\n  --path README.md matches none of src/**/*.ts: not loaded for it\n')
    expect(json(data)).toMatchObject({
      status: 'on-demand',
      paths: [{ path: 'README.md', matched: false }],
    })
    expect(json(data).reason).toContain('no working path given matches')
  })

  it('says a file loaded at start does not depend on --path', async () => {
    const r = await cli(['explain', 'AGENTS.md', '--path', 'src/a.ts'], { cwd: repo })
    expect(r.stdout).toContain('--path src/a.ts changes nothing: the file is loaded at start')
  })
})

describe('--path naming no file', () => {
  it('is kept, with a warning that names it and says it does not exist yet', async () => {
    const [explain, matrix] = await Promise.all([
      cli(['explain', '.cursor/rules/ts.mdc', '--mode', 'cursor', '--path', 'src/new.ts'], { cwd: repo }),
      cli(['matrix', '--modes', 'cursor', '--path', 'src/nwe.ts', ...fast], { cwd: repo }),
    ])
    expect(explain.code, explain.stderr).toBe(0)
    expect(explain.stderr).toMatch(/^sysprompt: warning: --path src\/new\.ts: does not exist \(yet\) under /)
    expect(explain.stdout).toContain('--path src/new.ts matches src/**/*.ts')
    expect(matrix.code, matrix.stderr).toBe(0)
    expect(matrix.stderr).toContain('--path src/nwe.ts: does not exist (yet)')
    const existing = await cli(['explain', 'AGENTS.md', '--path', 'src/a.ts'], { cwd: repo })
    expect(existing.stderr).toBe('')
  })
})

describe('advice', () => {
  it('inspect --as-harness says what to use instead', async () => {
    const r = await cli(['inspect', '--mode', 'claude', '--as-harness'], { cwd: repo })
    expect(r.code).toBe(2)
    oneErrorLine(r)
    expect(r.stderr).toContain('sysprompt show --mode <harness> --as-harness')
  })

  it('in sysprompt mode, --harness-config advice names the modes where it works', async () => {
    const r = await cli(['inspect', '--harness-config', 'maxBytes=65536'], { cwd: repo })
    expect(r.code).toBe(2)
    oneErrorLine(r)
    expect(r.stderr).toContain('--harness-config applies only with --mode codex')
    expect(r.stderr).not.toMatch(
      /use the harness's own key name, e\.g\. --harness-config project_doc_max_bytes=65536 with --mode codex$/m,
    )
  })

  it('never tells a command line user to pass an option to a library function', async () => {
    // A model missing from the cache-minimum table: the library's warning advises planCache's options.
    const r = await cli(['inspect', '--provider', 'anthropic', '--model', 'claude-unknown-9', ...fast], {
      cwd: repo,
    })
    expect(r.code, r.stderr).toBe(0)
    const all = `${r.stdout}${r.stderr}`.replace(/\n +/g, ' ')
    expect(all).not.toContain('planCache')
    expect(all).not.toMatch(/\bminTokens\b/)
    expect(all).toContain('model "claude-unknown-9" is not in the anthropic cache-minimum table')
  })
})
