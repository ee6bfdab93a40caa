import { readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { hashText } from '../../shared/hash.js'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

afterAll(removeFixtures)
afterEach(() => {
  vi.unstubAllEnvs()
})

/** A repository with a file above it, files on the walk, a second name and a file below cwd. */
async function monorepo() {
  const base = await fixtureTree({
    'AGENTS.md': 'above the repository\n',
    'repo/.git': { dir: true },
    'repo/AGENTS.md': '# Root\nroot rules\n',
    'repo/docs/AGENTS.md': '# Docs\ndocs rules\n',
    'repo/docs/CLAUDE.md': '# Docs for Claude\n',
    'repo/docs/api/CLAUDE.md': '# Api\napi rules\n',
    'repo/docs/api/below/AGENTS.md': 'below the working directory\n',
  })
  return { base, repo: join(base, 'repo'), cwd: join(base, 'repo/docs/api') }
}

describe('discoverInstructions (sysprompt mode)', () => {
  it('walks from the git root down to cwd, root first, one AGENTS.md per directory', async () => {
    const { repo, cwd } = await monorepo()
    const found = await discoverInstructions({ cwd, home: await emptyHome() })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'docs/AGENTS.md')])
    expect(found.text).toBe(
      '<!-- AGENTS.md -->\n# Root\nroot rules\n\n<!-- docs/AGENTS.md -->\n# Docs\ndocs rules\n',
    )
    expect(found.preload).toBe('full')
    expect(found.diagnostics).toEqual([])
  })

  it('reads fallback names, the first name present winning in each directory', async () => {
    const { repo, cwd } = await monorepo()
    const options = { cwd, home: await emptyHome(), names: ['AGENTS.md', 'CLAUDE.md'] }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(repo, 'AGENTS.md'),
      join(repo, 'docs/AGENTS.md'),
      join(repo, 'docs/api/CLAUDE.md'),
    ])
    const lost = await explainInstructions({ ...options, file: join(repo, 'docs/CLAUDE.md') })
    expect(lost).toMatchObject({ status: 'skipped', code: 'name-lost' })
    expect(lost.reason).toContain('docs/AGENTS.md')
  })

  it('puts the global file first of all, from ~/.config/sysprompt or the globalFiles option', async () => {
    const { repo, cwd } = await monorepo()
    const home = await fixtureTree({ '.config/sysprompt/AGENTS.md': 'global rules\n' })
    const found = await discoverInstructions({ cwd, home })
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.config/sysprompt/AGENTS.md'),
      join(repo, 'AGENTS.md'),
      join(repo, 'docs/AGENTS.md'),
    ])
    expect(
      found.text.startsWith('<!-- ~/.config/sysprompt/AGENTS.md -->\nglobal rules\n\n<!-- AGENTS.md -->'),
    ).toBe(true)

    const elsewhere = await fixtureTree({ 'team.md': 'team rules\n' })
    const custom = await discoverInstructions({ cwd, home, globalFiles: [join(elsewhere, 'team.md')] })
    expect(custom.files[0]!.path).toBe(join(elsewhere, 'team.md'))
    expect(custom.files).toHaveLength(3)
  })

  it('finds the global file under XDG_CONFIG_HOME when no home is given, never when one is', async () => {
    const { repo, cwd } = await monorepo()
    const xdg = await fixtureTree({ 'sysprompt/AGENTS.md': 'xdg rules\n' })
    vi.stubEnv('XDG_CONFIG_HOME', xdg)
    const found = await discoverInstructions({ cwd })
    expect(found.files.map((f) => f.path)).toEqual([
      join(xdg, 'sysprompt/AGENTS.md'),
      join(repo, 'AGENTS.md'),
      join(repo, 'docs/AGENTS.md'),
    ])
    const withHome = await discoverInstructions({ cwd, home: await emptyHome() })
    expect(withHome.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'docs/AGENTS.md')])
  })

  it('ignores a relative XDG_CONFIG_HOME and falls back to ~/.config, as the fragment layers do', async () => {
    const { repo, cwd } = await monorepo()
    const home = await fixtureTree({ '.config/sysprompt/AGENTS.md': 'home rules\n' })
    const xdg = await fixtureTree({ 'sysprompt/AGENTS.md': 'relative xdg rules\n' })
    vi.stubEnv('HOME', home)
    vi.stubEnv('XDG_CONFIG_HOME', relative(process.cwd(), xdg))
    const found = await discoverInstructions({ cwd })
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.config/sysprompt/AGENTS.md'),
      join(repo, 'AGENTS.md'),
      join(repo, 'docs/AGENTS.md'),
    ])
  })

  it('names the directory a file was loaded from, the root as "."', async () => {
    const { repo, cwd } = await monorepo()
    const options = { cwd, home: await emptyHome() }
    expect((await explainInstructions({ ...options, file: join(repo, 'AGENTS.md') })).reason).toBe(
      'loaded from ., file 1 in load order',
    )
  })

  it('keeps the call of the project:instructions resolver working with defaults', async () => {
    const { repo, cwd } = await monorepo()
    const found = await discoverInstructions({ cwd, root: repo, home: await emptyHome() })
    expect(found.files).toHaveLength(2)
    expect(found.preload).toBe('full')
  })

  it('takes the root option as the project root, and reports a cwd outside it', async () => {
    const { repo, cwd } = await monorepo()
    const home = await emptyHome()
    const fromDocs = await discoverInstructions({ cwd, root: join(repo, 'docs'), home })
    expect(fromDocs.files.map((f) => f.path)).toEqual([join(repo, 'docs/AGENTS.md')])
    expect(fromDocs.text).toBe('<!-- AGENTS.md -->\n# Docs\ndocs rules\n')

    const outside = await discoverInstructions({ cwd: repo, root: join(repo, 'docs'), home })
    expect(outside.diagnostics.map((d) => d.code)).toEqual(['cwd-outside-root'])
    expect(outside.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
  })

  it('reads only cwd when there is no git root and no root option', async () => {
    const base = await fixtureTree({ 'AGENTS.md': 'parent\n', 'work/AGENTS.md': 'here\n' })
    const found = await discoverInstructions({
      cwd: join(base, 'work'),
      home: await emptyHome(),
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'work/AGENTS.md')])
  })

  it('finds the root from a .git file (a worktree or submodule) too', async () => {
    const base = await fixtureTree({
      '.git': 'gitdir: elsewhere\n',
      'AGENTS.md': 'root\n',
      'a/AGENTS.md': 'a\n',
    })
    const found = await discoverInstructions({ cwd: join(base, 'a'), home: await emptyHome() })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'AGENTS.md'), join(base, 'a/AGENTS.md')])
  })

  it('gives each file its size and the sha256 of its text', async () => {
    const { repo, cwd } = await monorepo()
    const found = await discoverInstructions({ cwd, home: await emptyHome() })
    const text = await readFile(join(repo, 'AGENTS.md'), 'utf8')
    expect(found.files[0]).toEqual({
      path: join(repo, 'AGENTS.md'),
      bytes: Buffer.byteLength(text),
      hash: hashText(text),
      truncated: false,
    })
    expect(found.files[0]!.hash).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('does not read an instruction file that links outside the root', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET TOKEN\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n',
      'pkg/AGENTS.md': { link: join(outside, 'secret.md') },
    })
    const options = { cwd: join(repo, 'pkg'), home: await emptyHome() }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics).toMatchObject([{ code: 'outside-root', path: join(repo, 'pkg/AGENTS.md') }])
    const why = await explainInstructions({ ...options, file: 'AGENTS.md' })
    expect(why).toMatchObject({ file: join(repo, 'pkg/AGENTS.md'), status: 'skipped', code: 'outside-root' })
  })

  it('follows a link that stays inside the root', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'shared/rules.md': 'shared rules\n',
      'AGENTS.md': { link: 'shared/rules.md' },
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome() })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.text).toBe('<!-- AGENTS.md -->\nshared rules\n')
  })
})

describe('AGENTS.override.md (sysprompt mode)', () => {
  async function overridden() {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root rules\n',
      'pkg/AGENTS.md': 'pkg rules\n',
      'pkg/AGENTS.override.md': 'pkg override\n',
      'pkg/sub/AGENTS.md': 'sub rules\n',
      'other/AGENTS.md': 'other rules\n',
    })
    return repo
  }

  it('wins in its directory and replaces the files its subtree inherits', async () => {
    const repo = await overridden()
    const home = await fixtureTree({ '.config/sysprompt/AGENTS.md': 'global\n' })
    const options = { cwd: join(repo, 'pkg/sub'), home }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.config/sysprompt/AGENTS.md'),
      join(repo, 'pkg/AGENTS.override.md'),
      join(repo, 'pkg/sub/AGENTS.md'),
    ])
    expect(await explainInstructions({ ...options, file: join(repo, 'AGENTS.md') })).toMatchObject({
      status: 'skipped',
      code: 'shadowed-by-override',
      reason:
        'pkg/AGENTS.override.md replaces the instructions its directory inherits, so this file is not loaded for pkg/sub',
    })
    expect(await explainInstructions({ ...options, file: join(repo, 'pkg/AGENTS.md') })).toMatchObject({
      status: 'skipped',
      code: 'name-lost',
    })
  })

  it('takes the first global name present and says so of the other', async () => {
    const home = await fixtureTree({
      '.config/sysprompt/AGENTS.override.md': 'global override\n',
      '.config/sysprompt/AGENTS.md': 'global\n',
    })
    const repo = await fixtureTree({ '.git': { dir: true } })
    const options = { cwd: repo, home }
    expect((await discoverInstructions(options)).files.map((f) => f.path)).toEqual([
      join(home, '.config/sysprompt/AGENTS.override.md'),
    ])
    expect(
      await explainInstructions({ ...options, file: join(home, '.config/sysprompt/AGENTS.md') }),
    ).toMatchObject({
      status: 'skipped',
      code: 'name-lost',
      reason:
        '~/.config/sysprompt/AGENTS.override.md is the global file: the first of AGENTS.override.md, AGENTS.md',
    })
  })

  it('leaves directories outside its subtree alone', async () => {
    const repo = await overridden()
    const found = await discoverInstructions({ cwd: join(repo, 'other'), home: await emptyHome() })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'other/AGENTS.md')])
  })
})

describe('preload classes', () => {
  const long = `# Guide\n\nFirst paragraph of the guide,\nstill the first.\n\nSecond paragraph.\n\n## Build\n\nRun make.\n\n\`\`\`\n# not a heading\n\`\`\`\n`

  it('is full when everything fits, none when disabled (files still listed)', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': long })
    const home = await emptyHome()
    expect((await discoverInstructions({ cwd: repo, home })).preload).toBe('full')
    const none = await discoverInstructions({ cwd: repo, home, preload: 'none' })
    expect(none).toMatchObject({ preload: 'none', text: '' })
    expect(none.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
  })

  it('cuts nothing, spans nothing and sends nothing when disabled, whatever the cap', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': long })
    const home = await emptyHome()
    const none = await discoverInstructions({ cwd: repo, home, preload: 'none', maxBytes: 10 })
    expect(none).toMatchObject({ text: '', spans: [], diagnostics: [] })
    expect(none.files).toEqual([expect.objectContaining({ path: join(repo, 'AGENTS.md'), truncated: false })])
    expect(
      await explainInstructions({
        cwd: repo,
        home,
        preload: 'none',
        maxBytes: 10,
        file: join(repo, 'AGENTS.md'),
      }),
    ).toMatchObject({ status: 'included' })
    // Pi sends its project files in the system prompt; with nothing preloaded it sends no part at all.
    expect(
      (await discoverInstructions({ cwd: repo, home, mode: 'pi', preload: 'none' })).harness.parts,
    ).toEqual([])
    expect((await discoverInstructions({ cwd: repo, home, mode: 'pi' })).harness.parts).toHaveLength(1)
  })

  it('gives headings, the first paragraph and where to read the rest as a synopsis', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': long,
      'docs/AGENTS.md': 'Just prose.\n',
    })
    const found = await discoverInstructions({
      cwd: join(repo, 'docs'),
      home: await emptyHome(),
      preload: 'synopsis',
    })
    expect(found.preload).toBe('synopsis')
    expect(found.text).toBe(
      [
        '<!-- AGENTS.md -->',
        '# Guide',
        'First paragraph of the guide,',
        'still the first.',
        '## Build',
        `[Synopsis: headings and first paragraph only. Read AGENTS.md (${Buffer.byteLength(long)} bytes) for the rest.]`,
        '',
        '<!-- docs/AGENTS.md -->',
        'Just prose.',
        '[Synopsis: headings and first paragraph only. Read docs/AGENTS.md (12 bytes) for the rest.]',
        '',
      ].join('\n'),
    )
    expect(found.files.every((f) => !f.truncated)).toBe(true)
  })
})
