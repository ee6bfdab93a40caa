import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Expected lists follow the Codex row of ANCHORS (Codex CLI 0.171.0).
describe('codex mode', () => {
  async function tree() {
    const base = await fixtureTree({
      'AGENTS.md': 'above the git root: never read\n',
      'repo/.git': { dir: true },
      'repo/AGENTS.md': 'root doc\n@docs/extra.md\n',
      'repo/docs/extra.md': 'not imported by Codex\n',
      'repo/a/AGENTS.md': 'a doc (loses to the override)\n',
      'repo/a/AGENTS.override.md': 'a override\n',
      'repo/a/b/TEAM.md': 'team fallback\n',
      'repo/a/b/c/AGENTS.md': 'below cwd: never read\n',
      'repo/a/b/blank/AGENTS.md': ' \n\n',
    })
    const home = await fixtureTree({
      '.codex/AGENTS.override.md': '\n  global override  \n',
      '.codex/AGENTS.md': 'global default\n',
    })
    return { base, repo: join(base, 'repo'), home }
  }

  it('loads the global override, then one file per directory from the git root down to cwd', async () => {
    const { repo, home } = await tree()
    const options = { cwd: join(repo, 'a/b'), home, mode: 'codex' as const, names: ['TEAM.md'] }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.codex/AGENTS.override.md'),
      join(repo, 'AGENTS.md'),
      join(repo, 'a/AGENTS.override.md'),
      join(repo, 'a/b/TEAM.md'),
    ])
    // The global file is trimmed; `@` lines stay text; an override only wins in its own directory.
    expect(found.text).toBe(
      [
        '<!-- ~/.codex/AGENTS.override.md -->',
        'global override',
        '',
        '<!-- AGENTS.md -->',
        'root doc',
        '@docs/extra.md',
        '',
        '<!-- a/AGENTS.override.md -->',
        'a override',
        '',
        '<!-- a/b/TEAM.md -->',
        'team fallback',
        '',
      ].join('\n'),
    )
    expect(found.preload).toBe('full')
    expect(await explainInstructions({ ...options, file: join(repo, 'a/AGENTS.md') })).toMatchObject({
      code: 'name-lost',
    })
    expect(await explainInstructions({ ...options, file: join(home, '.codex/AGENTS.md') })).toMatchObject({
      code: 'name-lost',
    })
    expect(await explainInstructions({ ...options, file: join(repo, '../AGENTS.md') })).toMatchObject({
      code: 'outside-walk',
    })
    expect(await explainInstructions({ ...options, file: 'c/AGENTS.md' })).toMatchObject({
      code: 'outside-walk',
    })
  })

  it('skips blank files', async () => {
    const { repo } = await tree()
    const options = { cwd: join(repo, 'a/b/blank'), home: await emptyHome(), mode: 'codex' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(repo, 'AGENTS.md'),
      join(repo, 'a/AGENTS.override.md'),
    ])
    expect(await explainInstructions({ ...options, file: 'AGENTS.md' })).toMatchObject({
      code: 'empty',
      reason: 'it is blank, and Codex skips blank files',
    })
  })

  it('uses the first non-blank global file, and says why the others are not', async () => {
    const { repo } = await tree()
    const blankFirst = await fixtureTree({
      '.codex/AGENTS.override.md': ' \n',
      '.codex/AGENTS.md': 'global\n',
    })
    const options = { cwd: repo, home: blankFirst, mode: 'codex' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)[0]).toBe(join(blankFirst, '.codex/AGENTS.md'))
    expect(
      await explainInstructions({ ...options, file: join(blankFirst, '.codex/AGENTS.override.md') }),
    ).toMatchObject({
      status: 'skipped',
      code: 'empty',
      reason: 'it is blank, and Codex uses the first non-blank global file',
    })
    const { home } = await tree()
    expect(
      await explainInstructions({ ...options, home, file: join(home, '.codex/AGENTS.md') }),
    ).toMatchObject({
      code: 'name-lost',
      reason: "~/.codex/AGENTS.override.md is Codex's global file: only the first non-blank one is used",
    })
  })

  it('reads only cwd outside a git repository', async () => {
    const base = await fixtureTree({ 'AGENTS.md': 'parent\n', 'work/AGENTS.md': 'work\n' })
    const found = await discoverInstructions({
      cwd: join(base, 'work'),
      home: await emptyHome(),
      mode: 'codex',
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'work/AGENTS.md')])
  })

  it('cuts silently at 32 KiB root first, drops the rest, and says so in diagnostics', async () => {
    const big = `${'x'.repeat(99)}\n`.repeat(400) // 40 000 bytes
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': big,
      'pkg/AGENTS.md': 'nearest rules\n',
    })
    const home = await fixtureTree({ '.codex/AGENTS.md': 'global is not counted\n' })
    const options = { cwd: join(repo, 'pkg'), home, mode: 'codex' as const }
    const found = await discoverInstructions(options)
    expect(found.preload).toBe('truncated')
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([
      [join(home, '.codex/AGENTS.md'), false],
      [join(repo, 'AGENTS.md'), true],
    ])
    expect(found.text).toBe(
      `<!-- ~/.codex/AGENTS.md -->\nglobal is not counted\n\n<!-- AGENTS.md -->\n${big.slice(0, 32768)}\n`,
    )
    expect(found.text).not.toContain('omitted')
    expect(found.diagnostics.map((d) => d.code)).toEqual(['silently-truncated', 'over-budget'])
    expect(found.diagnostics[0]!.message).toContain('7 232 bytes')
    expect(await explainInstructions({ ...options, file: 'AGENTS.md' })).toMatchObject({
      code: 'over-budget',
    })
  })

  it('turns project files off with a zero cap', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'root\n' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'codex',
      maxBytes: 0,
    })
    expect(found.files).toEqual([])
  })
})
