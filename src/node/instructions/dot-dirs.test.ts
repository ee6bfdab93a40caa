import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import type { InstructionMode } from './discovery-options.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

// Nested instruction files in dot-directories (`.github/workflows/AGENTS.md`)
// are found as the harnesses find them, and the ignore files each harness
// honours keep `.venv`, `.tox` and the like out; VCS metadata stays out always.

afterAll(removeFixtures)

async function repo() {
  return fixtureTree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/sub/CLAUDE.md': 'git metadata\n',
    '.gitignore': '# caches\n.venv/\n.tox\n',
    'CLAUDE.md': 'root\n',
    'AGENTS.md': 'root\n',
    'GEMINI.md': 'root\n',
    '.github/workflows/CLAUDE.md': 'workflow rules for claude\n',
    '.github/workflows/AGENTS.md': 'workflow rules\n',
    '.github/workflows/GEMINI.md': 'workflow rules for gemini\n',
    '.github/workflows/after-ci.yml': 'on: push\n',
    '.venv/lib/CLAUDE.md': 'a package\n',
    '.venv/lib/AGENTS.md': 'a package\n',
    '.tox/py/GEMINI.md': 'a package\n',
    '.geminiignore': 'private/\n',
    'private/GEMINI.md': 'private\n',
    'private/CLAUDE.md': 'private\n',
    '.hg/CLAUDE.md': 'hg metadata\n',
  })
}

async function run(mode: InstructionMode, cwd: string, paths: string[] = []) {
  return discoverInstructions({ cwd, home: await emptyHome(), mode, fsRoot: cwd, paths })
}

describe('dot-directories in nested discovery', () => {
  it.each([
    ['claude', 'CLAUDE.md'],
    ['gemini', 'GEMINI.md'],
    ['opencode', 'AGENTS.md'],
    ['copilot', 'AGENTS.md'],
    ['cursor', 'AGENTS.md'],
    ['amp', 'AGENTS.md'],
  ] as const)('%s mode lists .github/workflows/%s on demand', async (mode, name) => {
    const cwd = await repo()
    const found = await run(mode, cwd)
    expect(found.onDemand.map((f) => f.path)).toContain(join(cwd, '.github/workflows', name))
  })

  it('loads the file in a dot-directory for a --path there', async () => {
    const cwd = await repo()
    const path = join(cwd, '.github/workflows/after-ci.yml')
    const found = await run('claude', cwd, [path])
    expect(found.lateBound.map((f) => [f.path, f.loadedFor])).toEqual([
      [join(cwd, '.github/workflows/CLAUDE.md'), [path]],
    ])
  })

  it('leaves out directories .gitignore ignores, and .git and .hg always', async () => {
    const cwd = await repo()
    const claude = (await run('claude', cwd)).onDemand.map((f) => f.path)
    expect(claude).not.toContain(join(cwd, '.venv/lib/CLAUDE.md'))
    expect(claude).not.toContain(join(cwd, '.git/sub/CLAUDE.md'))
    expect(claude).not.toContain(join(cwd, '.hg/CLAUDE.md'))
    // .geminiignore is Gemini CLI's alone.
    expect(claude).toContain(join(cwd, 'private/CLAUDE.md'))
    const gemini = (await run('gemini', cwd)).onDemand.map((f) => f.path)
    expect(gemini).not.toContain(join(cwd, '.tox/py/GEMINI.md'))
    expect(gemini).not.toContain(join(cwd, 'private/GEMINI.md'))
    expect(gemini).toContain(join(cwd, '.github/workflows/GEMINI.md'))
  })

  it('follows opencode, which checks no ignore file, into an ignored directory', async () => {
    const cwd = await repo()
    const found = (await run('opencode', cwd)).onDemand.map((f) => f.path)
    expect(found).toContain(join(cwd, '.venv/lib/AGENTS.md'))
    expect(found).not.toContain(join(cwd, '.git/sub/AGENTS.md'))
  })

  it('honours a deeper .gitignore and a rule that takes a directory back', async () => {
    const cwd = await fixtureTree({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.gitignore': 'build/\n!keep/build/\n',
      'a/.gitignore': 'local/\n',
      'a/local/CLAUDE.md': 'ignored below\n',
      'b/local/CLAUDE.md': 'not ignored here\n',
      'build/CLAUDE.md': 'ignored\n',
      'keep/build/CLAUDE.md': 'taken back\n',
    })
    const found = (await run('claude', cwd)).onDemand.map((f) => f.path)
    expect(found).toEqual([join(cwd, 'b/local/CLAUDE.md'), join(cwd, 'keep/build/CLAUDE.md')])
  })

  it('applies the .gitignore above cwd inside the repository', async () => {
    const root = await fixtureTree({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.gitignore': 'gen/\n',
      'pkg/gen/CLAUDE.md': 'generated\n',
      'pkg/src/CLAUDE.md': 'source\n',
    })
    const cwd = join(root, 'pkg')
    const found = await discoverInstructions({ cwd, home: await emptyHome(), mode: 'claude', fsRoot: root })
    expect(found.onDemand.map((f) => f.path)).toEqual([join(cwd, 'src/CLAUDE.md')])
  })
})

describe('explain for a nested file in a dot-directory', () => {
  it('says it loads on demand when the agent works there, and for which --path', async () => {
    const cwd = await repo()
    const options = { cwd, home: await emptyHome(), fsRoot: cwd }
    const onDemand = await explainInstructions({
      ...options,
      mode: 'claude',
      file: '.github/workflows/CLAUDE.md',
    })
    expect(onDemand.status).toBe('on-demand')
    expect(onDemand.reason).toContain('when the agent works under .github/workflows')
    const late = await explainInstructions({
      ...options,
      mode: 'claude',
      file: '.github/workflows/CLAUDE.md',
      paths: [join(cwd, '.github/workflows/after-ci.yml')],
    })
    expect(late.status).toBe('late-bound')
    expect(late.reason).toContain('.github/workflows/after-ci.yml')
  })

  it('names the ignore file and line that leave a directory out', async () => {
    const cwd = await repo()
    const options = { cwd, home: await emptyHome(), fsRoot: cwd }
    const venv = await explainInstructions({ ...options, mode: 'claude', file: '.venv/lib/CLAUDE.md' })
    expect(venv).toMatchObject({ status: 'skipped', code: 'ignored' })
    expect(venv.reason).toContain('.venv is left out: ignored by .gitignore line 2: .venv/')
    const hidden = await explainInstructions({ ...options, mode: 'gemini', file: 'private/GEMINI.md' })
    expect(hidden.reason).toContain('ignored by .geminiignore line 1: private/')
    const git = await explainInstructions({ ...options, mode: 'claude', file: '.hg/CLAUDE.md' })
    expect(git).toMatchObject({ status: 'skipped', code: 'outside-walk' })
    expect(git.reason).toContain('version-control metadata')
  })
})

describe('Cline (≤ 3.89.2) nested AGENTS.md, through its file listing', () => {
  it('skips dot-directories and its fixed list, and reads nested files only when the root has AGENTS.md', async () => {
    const cwd = await repo()
    await import('node:fs/promises').then(async ({ mkdir, writeFile }) => {
      for (const dir of ['venv/x', 'src/api']) await mkdir(join(cwd, dir), { recursive: true })
      await writeFile(join(cwd, 'venv/x/AGENTS.md'), 'a package\n')
      await writeFile(join(cwd, 'src/api/AGENTS.md'), 'api\n')
    })
    const found = await run('cline', cwd)
    expect(found.files.map((f) => f.path)).toEqual([join(cwd, 'AGENTS.md'), join(cwd, 'src/api/AGENTS.md')])
    const why = await explainInstructions({
      cwd,
      home: await emptyHome(),
      fsRoot: cwd,
      mode: 'cline',
      file: '.github/workflows/AGENTS.md',
    })
    expect(why.reason).toContain("Cline's file listing (list-files.ts) skips dot-directories")
    const bare = await fixtureTree({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'src/AGENTS.md': 'nested only\n',
    })
    expect((await run('cline', bare)).files).toEqual([])
  })
})
