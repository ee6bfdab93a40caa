import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  cli,
  env,
  fast,
  json,
  makeGitDir,
  oneErrorLine,
  sandbox,
  useSandbox,
  write,
} from './cli.test-helper.js'

// The harnesses' own configuration, read by the built CLI: each harness's files, the flag, explain naming the setting.
useSandbox()

const SECRET = 'sk-live-abcdef0123456789'

describe('--harness-config', () => {
  it('rejects an unknown key or a bad value on one line, naming the keys the mode accepts', async () => {
    const [unknown, bad] = await Promise.all([
      cli(['show', '--mode', 'codex', '--harness-config', 'context.fileName=A.md', ...fast]),
      cli(['explain', 'x', '--mode', 'claude', '--harness-config', 'instructionFiles=always']),
    ])
    expect(unknown.code).toBe(2)
    oneErrorLine(unknown)
    expect(unknown.stderr).toContain(
      'unknown key "context.fileName"; codex mode accepts project_doc_max_bytes, project_doc_fallback_filenames',
    )
    expect(bad.code).toBe(2)
    oneErrorLine(bad)
    expect(bad.stderr).toContain('--harness-config instructionFiles: expected one of claude-md')
  })
})

describe('per harness', () => {
  let repo: string
  beforeAll(async () => {
    repo = await makeGitDir('harness-config')
    await write(join(repo, 'AGENTS.md'), `# Root\n\n${'Use pnpm. '.repeat(20)}\n`)
    await write(join(repo, 'CLAUDE.md'), '@AGENTS.md\n')
    await write(join(repo, 'GEMINI.md'), 'gemini\n')
    await write(join(repo, 'pkg', 'TEAM.md'), 'team\n')
    await write(
      join(repo, '.gemini', 'settings.json'),
      `{\n  // ours\n  "context": { "fileName": "TEAM.md" },\n}\n`,
    )
    await write(join(repo, 'opencode.json'), JSON.stringify({ instructions: ['pkg/*.md'] }))
  })

  it('codex: config.toml under CODEX_HOME sets the cap; explain names the file and key; the flag overrides it', async () => {
    const codexHome = join(sandbox.base, 'codex-home')
    await write(
      join(codexHome, 'config.toml'),
      'project_doc_max_bytes = 30\nproject_doc_fallback_filenames = ["TEAM.md"]\n',
    )
    const withHome = env({ CODEX_HOME: codexHome })
    const cwd = join(repo, 'pkg')
    const [view, why, flagged] = await Promise.all([
      cli(['show', '--mode', 'codex', '--as-harness', '--json', ...fast], { cwd, env: withHome }),
      cli(['explain', join(repo, 'AGENTS.md'), '--mode', 'codex'], { cwd, env: withHome }),
      cli(
        [
          'show',
          '--mode',
          'codex',
          '--as-harness',
          '--json',
          '--harness-config',
          'project_doc_max_bytes=4096',
          ...fast,
        ],
        {
          cwd,
          env: withHome,
        },
      ),
    ])
    expect(view.code).toBe(0)
    expect(json(view).parts[0].files).toEqual([join(repo, 'AGENTS.md')])
    expect(why.stdout).toContain('truncated')
    expect(why.stdout).toContain('set by project_doc_max_bytes in ../codex-home/config.toml')
    expect(json(flagged).parts[0].files).toEqual([join(repo, 'AGENTS.md'), join(cwd, 'TEAM.md')])
  })

  it('gemini, opencode and claude read their files; claude approves the ruff import only when told', async () => {
    const cwd = join(repo, 'pkg')
    const [gemini, opencode, claude, approved] = await Promise.all([
      cli(['show', '--mode', 'gemini', '--as-harness', '--json', ...fast], { cwd: repo }),
      cli(['show', '--mode', 'opencode', '--as-harness', '--json', ...fast], { cwd: repo }),
      cli(['show', '--mode', 'claude', '--as-harness', '--json', ...fast], { cwd }),
      cli(
        [
          'show',
          '--mode',
          'claude',
          '--as-harness',
          '--json',
          '--harness-config',
          'hasClaudeMdExternalIncludesApproved=true',
          ...fast,
        ],
        { cwd },
      ),
    ])
    expect(json(gemini).parts.flatMap((p: { files: string[] }) => p.files)).toEqual([join(repo, 'GEMINI.md')])
    expect(json(opencode).parts[0].files).toEqual([join(repo, 'AGENTS.md'), join(repo, 'pkg', 'TEAM.md')])
    expect(json(claude).parts[0].files).toEqual([join(repo, 'CLAUDE.md')])
    expect(json(approved).parts[0].files).toEqual([join(repo, 'CLAUDE.md'), join(repo, 'AGENTS.md')])
    const geminiHere = await cli(['show', '--mode', 'gemini', '--as-harness', '--json', ...fast], { cwd })
    // The workspace settings are the working directory's: from pkg/, none, so TEAM.md is not a name.
    expect(json(geminiHere).parts.flatMap((p: { files: string[] }) => p.files)).toEqual([
      join(repo, 'GEMINI.md'),
    ])
  })

  it('a hostile project config is refused without its contents and without hanging', async () => {
    const hostile = await makeGitDir('hostile-config')
    await write(join(hostile, 'GEMINI.md'), 'g\n')
    await write(join(hostile, 'opencode.jsonc'), `{"instructions": ["AGENTS.md"], "apiKey": "${SECRET}" !!}`)
    await write(join(hostile, '.codex', 'placeholder'), '')
    execFileSync('mkfifo', [join(hostile, '.gemini-fifo')])
    await write(join(hostile, '.gemini', 'x'), '')
    execFileSync('ln', ['-s', join(hostile, '.gemini-fifo'), join(hostile, '.gemini', 'settings.json')])
    const [gemini, opencode] = await Promise.all([
      cli(['inspect', '--mode', 'gemini', '--json', ...fast], { cwd: hostile }),
      cli(['inspect', '--mode', 'opencode', '--json', ...fast], { cwd: hostile }),
    ])
    expect(gemini.code).toBe(0)
    expect(JSON.stringify(json(gemini).instructions.diagnostics)).toContain('is not a regular file')
    expect(opencode.code).toBe(0)
    expect(opencode.stdout + opencode.stderr).not.toContain(SECRET)
    expect(JSON.stringify(json(opencode).instructions.diagnostics)).toMatch(
      /opencode\.jsonc is not valid JSON/,
    )
  })
})

describe('--mode X@VERSION', () => {
  it('picks the version profile; inspect and explain say which applied; a bad version is one line', async () => {
    const repo = await makeGitDir('profiles')
    await write(join(repo, 'AGENTS.md'), 'agents\n')
    const [old, now, why, bad, newer] = await Promise.all([
      cli(['inspect', '--json', '--mode', 'claude@2.1.200', ...fast], { cwd: repo }),
      cli(['inspect', '--mode', 'claude', ...fast], { cwd: repo }),
      cli(['explain', 'AGENTS.md', '--mode', 'claude@2.1.200'], { cwd: repo }),
      cli(['show', '--mode', 'claude@2.1', ...fast], { cwd: repo }),
      cli(['inspect', '--mode', 'opencode@99.0.0', ...fast], { cwd: repo }),
    ])
    expect(old.code).toBe(0)
    expect(json(old).instructions.files).toEqual([])
    expect(json(old).instructions.profile).toMatchObject({ version: '2.1.200', range: 'before 2.1.277' })
    expect(now.stdout).toContain('profile: claude 2.1.332 (2.1.277 and later:')
    expect(now.stdout).toContain('AGENTS.md')
    expect(why.stdout).toContain(
      'AGENTS.md: skipped: Claude Code never reads AGENTS.md in the Claude Code 2.1.200 profile',
    )
    expect(why.stdout).toContain('profile: claude 2.1.200 (before 2.1.277')
    expect(bad.code).toBe(2)
    oneErrorLine(bad)
    expect(bad.stderr).toContain('not a version')
    expect(bad.stderr).toContain('claude: before 2.1.277, 2.1.277 and later (newest observed 2.1.332)')
    // A release newer than the newest observed: accepted, modelled by the newest, and the output says so.
    expect(newer.code, newer.stderr).toBe(0)
    expect(newer.stdout).toContain('profile: opencode 99.0.0')
    expect(newer.stdout.replace(/\s+/g, ' ')).toContain(
      'opencode@99.0.0 is newer than the newest opencode sysprompt has observed (1.18.33): it is shown as 1.18.33 behaves',
    )
  })
})
