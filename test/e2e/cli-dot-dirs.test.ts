import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, useSandbox } from './cli.test-helper.js'

// Nested instruction files in dot-directories through the built CLI: a
// working path in `.github/workflows/` loads the AGENTS.md and CLAUDE.md
// there, and `explain` says why (or which ignore rule leaves one out).
useSandbox()

let repo = ''
beforeAll(async () => {
  repo = await makeGitDir('dot-dirs')
  const files: Record<string, string> = {
    'AGENTS.md': 'Root rules.\n',
    'CLAUDE.md': 'Root rules for Claude.\n',
    '.gitignore': '.venv/\n',
    '.github/workflows/AGENTS.md': 'Pin every action to a commit.\n',
    '.github/workflows/CLAUDE.md': 'Pin every action to a commit, Claude.\n',
    '.github/workflows/x.yml': 'on: push\n',
    '.venv/lib/AGENTS.md': 'A package.\n',
  }
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(repo, rel, '..'), { recursive: true })
    await writeFile(join(repo, rel), text)
  }
})

describe('dot-directories', () => {
  it('matrix --path .github/workflows/x.yml adds the files of that directory', async () => {
    const r = await cli(
      ['matrix', '--modes', 'claude,copilot,codex', '--path', '.github/workflows/x.yml', '--json', ...fast],
      { cwd: repo },
    )
    expect(r.code, r.stderr).toBe(0)
    const data = json(r) as { harnesses: { mode: string; rows: { forPath: string[] }[] }[] }
    const forPath = Object.fromEntries(data.harnesses.map((h) => [h.mode, h.rows[0]!.forPath]))
    expect(forPath).toEqual({
      claude: ['.github/workflows/CLAUDE.md'],
      copilot: ['.github/workflows/AGENTS.md'],
      // Codex reads the repository root down to cwd only.
      codex: [],
    })
  })

  it('explain says when a nested file in a dot-directory loads, and which rule ignores another', async () => {
    const [onDemand, ignored] = await Promise.all([
      cli(
        ['explain', '.github/workflows/CLAUDE.md', '--mode', 'claude', '--path', '.github/workflows/x.yml'],
        {
          cwd: repo,
        },
      ),
      cli(['explain', '.venv/lib/AGENTS.md', '--mode', 'copilot'], { cwd: repo }),
    ])
    expect(onDemand.code, onDemand.stderr).toBe(0)
    expect(onDemand.stdout).toMatch(/late-bound/)
    expect(onDemand.stdout).toMatch(/\.github\/workflows\/x\.yml/)
    expect(ignored.code, ignored.stderr).toBe(0)
    expect(ignored.stdout).toMatch(/ignored by \.gitignore line 1: \.venv\//)
  })
})
