import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, type FixtureEntry, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// What the claude mode reads in each directory, and the words for what it does not (Claude Code 2.1.332, ANCHORS).
describe('claude mode: the files of a walked directory', () => {
  async function repo(files: Record<string, FixtureEntry> = {}) {
    const base = await fixtureTree({ '.git': { dir: true }, 'CLAUDE.md': 'root\n', 'sub/x.ts': '', ...files })
    return { base, options: { cwd: base, home: await emptyHome(), mode: 'claude' as const, fsRoot: base } }
  }

  it('names the files it reads in each directory, and the walk, when asked about another file', async () => {
    const { base, options } = await repo()
    expect(await explainInstructions({ ...options, file: 'README.md' })).toMatchObject({
      code: 'not-a-candidate',
      reason:
        'claude mode reads only CLAUDE.md, CLAUDE.local.md, AGENTS.md in each directory, and no loaded file imports README.md',
    })
    expect(await explainInstructions({ ...options, file: 'sub/CLAUDE.md' })).toMatchObject({
      code: 'outside-walk',
      reason: `claude mode reads every directory from the file-system root ${base} down to the working directory ${base}, ignoring git; ${join(base, 'sub')} is not one of them`,
    })
  })

  it('says a file it would read is simply not there', async () => {
    const { options } = await repo()
    for (const name of ['CLAUDE.local.md', 'AGENTS.md'])
      expect(await explainInstructions({ ...options, file: name })).toMatchObject({
        code: 'missing',
        reason: `there is no file ${name}`,
      })
    expect(await explainInstructions({ ...options, file: 'CLAUDE.md' })).toMatchObject({ code: 'included' })
  })

  it('reads a file reached twice through a link once', async () => {
    const { options } = await repo({ 'CLAUDE.local.md': { link: 'CLAUDE.md' } })
    expect((await discoverInstructions(options)).files).toHaveLength(1)
    expect(await explainInstructions({ ...options, file: 'CLAUDE.local.md' })).toMatchObject({
      code: 'duplicate',
      reason: 'the same file was already loaded',
    })
  })

  it('reads no other Markdown under .claude than CLAUDE.md and the rules', async () => {
    const { base, options } = await repo({
      '.claude/commands/deploy.md': 'a command\n',
      '.claude/rules/style.md': 'style\n',
    })
    const home = await fixtureTree({
      '.claude/CLAUDE.md': 'global\n',
      '.claude/agents/reviewer.md': 'an agent\n',
      '.claude/rules/mine.md': 'mine\n',
    })
    const found = await discoverInstructions({ ...options, home })
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.claude/CLAUDE.md'),
      join(home, '.claude/rules/mine.md'),
      join(base, 'CLAUDE.md'),
      join(base, '.claude/rules/style.md'),
    ])
    expect(
      await explainInstructions({ ...options, home, file: join(home, '.claude/CLAUDE.md') }),
    ).toMatchObject({
      code: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })

  it('passes over a global file that is not a regular file without a word', async () => {
    const { base, options } = await repo()
    const home = await fixtureTree({ 'notes/a.md': 'a\n' })
    const found = await discoverInstructions({ ...options, home, globalFiles: [join(home, 'notes')] })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'CLAUDE.md')])
    expect(found.diagnostics).toEqual([])
  })
})

describe('claude mode: the rules of .claude/rules', () => {
  it('reads Markdown files only, in every subdirectory, ordered by path code unit by code unit', async () => {
    const rules = ['c.md', 'a/z.md', 'B.md', 'a-b.md', 'a.md', 'notes.txt', 'README']
    const files: Record<string, string> = { '.git': '' }
    for (const name of rules) files[`.claude/rules/${name}`] = `${name}\n`
    const base = await fixtureTree(files)
    const found = await discoverInstructions({
      cwd: base,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path.slice(base.length + 1))).toEqual(
      ['B.md', 'a-b.md', 'a.md', 'a/z.md', 'c.md'].map((name) => join('.claude/rules', name)),
    )
  })

  it('reads no socket that is named like a rule', async () => {
    const base = await fixtureTree({ '.git': { dir: true }, '.claude/rules/a.md': 'a\n' })
    const server: Server = createServer()
    await new Promise<void>((done) => server.listen(join(base, '.claude/rules/socket.md'), done))
    try {
      const found = await discoverInstructions({
        cwd: base,
        home: await emptyHome(),
        mode: 'claude',
        fsRoot: base,
      })
      expect(found.files.map((f) => f.path)).toEqual([join(base, '.claude/rules/a.md')])
      expect(found.diagnostics).toEqual([])
    } finally {
      await new Promise((done) => server.close(done))
    }
  })

  it('attaches a rule with paths: for the files it names: a list or a comma-separated string, trimmed', async () => {
    const base = await fixtureTree({
      '.git': { dir: true },
      '.claude/rules/comma.md': '---\npaths: src/**/*.ts, lib/**/*.ts,\n---\nts\n',
      '.claude/rules/list.md': '---\npaths:\n  - " docs/**/*.md "\n  - ""\n---\ndocs\n',
      '.claude/rules/empty.md': '---\n\n---\nempty front matter\n',
      '.claude/rules/broken.md': '---\npaths: [\n---\nbroken front matter\n',
    })
    const found = await discoverInstructions({
      cwd: base,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path)).toEqual([
      join(base, '.claude/rules/broken.md'),
      join(base, '.claude/rules/empty.md'),
    ])
    expect(found.text).toContain('empty front matter\n')
    expect(found.onDemand.map((o) => [o.path, o.trigger])).toEqual([
      [
        join(base, '.claude/rules/comma.md'),
        {
          kind: 'matches',
          globs: ['src/**/*.ts', 'lib/**/*.ts'],
          base,
          syntax: 'gitignore',
          written: 'src/**/*.ts, lib/**/*.ts,',
        },
      ],
      [
        join(base, '.claude/rules/list.md'),
        { kind: 'matches', globs: ['docs/**/*.md'], base, syntax: 'gitignore', written: 'docs/**/*.md' },
      ],
    ])
  })
})

describe('claude mode: what a byte budget cuts first', () => {
  it('counts a rule as near as its directory', async () => {
    const base = await fixtureTree({
      'CLAUDE.md': 'far\n',
      'repo/.git': { dir: true },
      'repo/.claude/rules/r.md': 'rule\n',
      'repo/pkg/CLAUDE.md': 'near\n',
    })
    const found = await discoverInstructions({
      cwd: join(base, 'repo/pkg'),
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: base,
      maxBytes: 10,
    })
    expect(found.files.map((f) => [f.path.slice(base.length + 1), f.truncated])).toEqual([
      ['CLAUDE.md', true],
      ['repo/.claude/rules/r.md', false],
      ['repo/pkg/CLAUDE.md', false],
    ])
  })

  it('counts the global file farthest, even when the home directory lies on the walk', async () => {
    const base = await fixtureTree({
      'CLAUDE.md': 'far\n',
      'home/.claude/CLAUDE.md': 'mine\n',
      'home/repo/.git': { dir: true },
      'home/repo/CLAUDE.md': 'near\n',
    })
    const found = await discoverInstructions({
      cwd: join(base, 'home/repo'),
      home: join(base, 'home'),
      mode: 'claude',
      fsRoot: base,
      maxBytes: 9,
    })
    expect(found.files.map((f) => [f.path.slice(base.length + 1), f.truncated])).toEqual([
      ['home/.claude/CLAUDE.md', true],
      ['CLAUDE.md', false],
      ['home/repo/CLAUDE.md', false],
    ])
  })
})
