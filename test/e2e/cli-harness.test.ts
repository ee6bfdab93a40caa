import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, useSandbox, write } from './cli.test-helper.js'

// What each agent really receives: files loaded on demand, as the built CLI reports them.
useSandbox()

describe('on demand', () => {
  let repo: string
  beforeAll(async () => {
    repo = await makeGitDir('on-demand')
    await write(join(repo, 'CLAUDE.md'), '# Root\n')
    await write(join(repo, 'pkg', 'api', 'CLAUDE.md'), '# API\n\nUse the client.\n')
    await write(join(repo, '.claude', 'rules', 'ts.md'), '---\npaths: ["**/*.ts"]\n---\nStrict TypeScript.\n')
  })

  it('inspect lists nested files and path rules as on demand, not skipped', async () => {
    const r = await cli(['inspect', '--mode', 'claude', ...fast], { cwd: repo })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('On demand (loaded with a tool result, never in the cached prefix)')
    // Reasons wrap at word boundaries to the width (80 in a pipe): read them as one text.
    const prose = r.stdout.replace(/\n +/g, ' ')
    // A nested file loads when the agent works in its own directory, said so; a rule names its pattern.
    expect(prose).toMatch(/pkg\/api\/CLAUDE\.md +\d+ +in its directory/)
    expect(prose).toContain('when the agent reads a file matching **/*.ts')
  })

  it('--path turns them into late-bound entries, in inspect --json and in explain', async () => {
    const [inspect, explain, plain] = await Promise.all([
      cli(['inspect', '--json', '--mode', 'claude', '--path', 'pkg/api/x.ts', ...fast], { cwd: repo }),
      cli(['explain', 'pkg/api/CLAUDE.md', '--mode', 'claude', '--path', 'pkg/api/x.ts', '--json'], {
        cwd: repo,
      }),
      cli(['explain', 'pkg/api/CLAUDE.md', '--mode', 'claude'], { cwd: repo }),
    ])
    const onDemand = json(inspect).instructions.onDemand
    expect(onDemand.map((f: { shown: string; lands: string | null }) => [f.shown, f.lands])).toEqual([
      ['.claude/rules/ts.md', 'tool-result'],
      ['pkg/api/CLAUDE.md', 'tool-result'],
    ])
    expect(json(explain)).toMatchObject({ status: 'late-bound', code: 'late-bound' })
    expect(plain.stdout).toContain('pkg/api/CLAUDE.md: on-demand: when the agent works under pkg/api')
  })
})

describe('harness view', () => {
  let repo: string
  beforeAll(async () => {
    repo = await makeGitDir('harness-view')
    await write(join(repo, 'AGENTS.md'), '# Root\n\nUse pnpm.\n')
  })

  it('show --as-harness prints what Codex sends and where it lands', async () => {
    const [text, data] = await Promise.all([
      cli(['show', '--mode', 'codex', '--as-harness', ...fast], { cwd: repo }),
      cli(['show', '--mode', 'codex', '--as-harness', '--json', ...fast], { cwd: repo }),
    ])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('=== codex: a message of its own, user role, ')
    expect(text.stdout).toContain(
      `# AGENTS.md instructions for ${repo}\n\n<INSTRUCTIONS>\n# Root\n\nUse pnpm.\n\n</INSTRUCTIONS>\n`,
    )
    expect(json(data).parts[0]).toMatchObject({ placement: 'separate-message', role: 'user' })
  })

  it('inspect says where each part goes; --as-harness with a provider format is a usage error', async () => {
    const [inspect, bad] = await Promise.all([
      cli(['inspect', '--mode', 'pi', ...fast], { cwd: repo }),
      cli(['show', '--mode', 'pi', '--as-harness', '--format', 'openai', ...fast], { cwd: repo }),
    ])
    expect(inspect.stdout).toContain('Where pi puts them (show --as-harness prints the text)')
    expect(inspect.stdout).toMatch(/system-prompt\s+system\s+\d+\s+AGENTS\.md/)
    expect(bad.code).toBe(2)
  })
})

describe('pi project trust', () => {
  it('shows the untrusted view of a project with .pi/SYSTEM.md and says so on stderr; trust=yes shows the trusted one', async () => {
    const repo = await makeGitDir('pi-trust')
    await write(join(repo, 'AGENTS.md'), 'Root rules.\n')
    await write(join(repo, '.pi', 'SYSTEM.md'), 'Project system.\n')
    const [untrusted, trusted, old] = await Promise.all([
      cli(['show', '--mode', 'pi', '--as-harness', ...fast], { cwd: repo }),
      cli(['show', '--mode', 'pi', '--as-harness', '--harness-config', 'trust=yes', ...fast], { cwd: repo }),
      cli(['show', '--mode', 'pi@0.73.1', '--as-harness', ...fast], { cwd: repo }),
    ])
    expect(untrusted.code).toBe(0)
    expect(untrusted.stdout).toMatch(
      /^=== pi: system prompt, system role, \d+ tokens ===\n\[pi base prompt: \d+ tokens\]\n\n<project_context>\n/,
    )
    expect(untrusted.stdout).toContain(
      `<project_instructions path="${join(repo, 'AGENTS.md')}">\nRoot rules.\n\n</project_instructions>`,
    )
    expect(untrusted.stdout).toContain(`<cwd>\n${repo}\n</cwd>\n`)
    expect(untrusted.stderr).toContain('This view is the untrusted one')
    expect(trusted.stdout).toMatch(/===\nProject system\.\n\n\n<project_context>\n/)
    expect(trusted.stderr).toBe('')
    expect(old.stdout).toContain('Project system.\n\n\n# Project Context\n')
  })
})
