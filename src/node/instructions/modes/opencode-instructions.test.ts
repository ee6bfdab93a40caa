import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import type { InstructionDiscovery } from '../discovery-results.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { ON_DEMAND_DIR_LIMIT } from '../on-demand.js'

afterAll(removeFixtures)

/** A home whose own opencode config lists `instructions`. */
function homeListing(instructions: string[]): Promise<string> {
  return fixtureTree({ '.config/opencode/opencode.json': JSON.stringify({ instructions }) })
}

function diagnostics(found: InstructionDiscovery): [string, string, string][] {
  return found.diagnostics.map((d) => [d.code, d.severity, d.message])
}

const USER_SOURCE = 'instructions in ~/.config/opencode/opencode.json'

// opencode 1.18.33 `session/instruction.ts`: the `instructions` entries of its config files.
describe('opencode config instructions', () => {
  it('leaves URLs to opencode (http or https, any case) but reads a path that only contains one', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'notes/http:/c.md': 'c\n' })
    const home = await homeListing([
      'http://example.com/a.md',
      'HTTPS://example.com/b.md',
      'notes/http://c.md',
    ])
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'notes/http:/c.md')])
    const url = `an instructions entry of ${USER_SOURCE} is a URL: opencode fetches it, sysprompt never fetches, so it is left out.`
    expect(diagnostics(found)).toEqual([
      ['harness-config', 'info', url],
      ['harness-config', 'info', url],
    ])
  })

  it('refuses a project entry that leads out of the project, saying where it was listed', async () => {
    const base = await fixtureTree({
      'shared.md': 'beside the repository\n',
      'repo/.git': { dir: true },
      'repo/opencode.json': JSON.stringify({ instructions: ['../shared.md'] }),
    })
    const repo = join(base, 'repo')
    const options = { cwd: repo, home: await emptyHome(), mode: 'opencode' as const, fsRoot: base }
    const found = await discoverInstructions(options)
    expect(found.files).toEqual([])
    expect(diagnostics(found)).toEqual([
      [
        'outside-root',
        'warning',
        '../shared.md is listed by instructions in opencode.json but lies outside the project; it was not read.',
      ],
    ])
    expect(await explainInstructions({ ...options, file: join(base, 'shared.md') })).toMatchObject({
      status: 'skipped',
      code: 'outside-root',
      reason: 'listed by instructions in opencode.json, but outside the project',
    })
  })

  it('looks for a relative entry from cwd up to the git root, nearest first, never above it', async () => {
    const base = await fixtureTree({
      'notes.md': 'above the git root\n',
      'repo/.git': { dir: true },
      'repo/notes.md': 'root notes\n',
      'repo/team.md': 'team\n',
      'repo/pkg/notes.md': 'pkg notes\n',
    })
    const repo = join(base, 'repo')
    const home = await homeListing(['notes.md', '../team.md', 'missing.md'])
    const found = await discoverInstructions({ cwd: join(repo, 'pkg'), home, mode: 'opencode', fsRoot: base })
    // `../team.md` is a path, not a glob: from pkg it names the root's team.md.
    expect(found.files.map((f) => f.path)).toEqual([
      join(repo, 'pkg/notes.md'),
      join(repo, 'notes.md'),
      join(repo, 'team.md'),
    ])
    expect(found.diagnostics).toEqual([])
  })

  it('skips an empty match as opencode does', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n', 'empty.md': '' })
    const options = { cwd: repo, home: await homeListing(['empty.md']), mode: 'opencode' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(await explainInstructions({ ...options, file: 'empty.md' })).toMatchObject({
      status: 'skipped',
      code: 'empty',
      reason: 'it is empty, and opencode leaves empty files out',
    })
  })

  it('reads an absolute entry of a project config inside the project; a missing directory or file adds nothing', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'docs/a.md': 'doc a\n' })
    const instructions = [join(repo, 'docs/*.md'), join(repo, 'gone/*.md'), join(repo, 'docs/missing.md')]
    await writeFile(join(repo, 'opencode.json'), JSON.stringify({ instructions }))
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'docs/a.md')])
    expect(found.diagnostics).toEqual([])
  })

  it('globs files and links to files, not directories or dot files, sorted by path', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'a.team.md': 'team in the root\n',
      'pkg/b.team.md': 'not in a walked directory\n',
      'rules/z.md': 'z\n',
      'rules/a/x.md': 'x\n',
      'rules/dir.md': { dir: true },
      'rules/.hidden.md': 'hidden\n',
      'rules/link.md': { link: '../shared.txt' },
      'shared.txt': 'shared through a link\n',
    })
    const home = await homeListing(['*.team.md', 'rules/**/*.md'])
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(repo, 'a.team.md'),
      join(repo, 'rules/a/x.md'),
      join(repo, 'rules/link.md'),
      join(repo, 'rules/z.md'),
    ])
    expect(found.harness.parts[0]!.text).toContain('shared through a link')
    expect(found.diagnostics).toEqual([])
  })

  it('matches a glob without `/` in the walked directories only, never walking the tree below them', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'team.md': 'team\n' })
    // More directories below than a walk looks at: walking them would end in the walk's notice.
    const names = Array.from({ length: ON_DEMAND_DIR_LIMIT + 1 }, (_, i) => `d${String(i).padStart(5, '0')}`)
    for (let i = 0; i < names.length; i += 500)
      await Promise.all(names.slice(i, i + 500).map((name) => mkdir(join(repo, name))))
    const found = await discoverInstructions({
      cwd: repo,
      home: await homeListing(['*.md']),
      mode: 'opencode',
      // A version without lazy loading, whose walk below cwd would raise the same notice.
      harnessVersion: '1.1.34',
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'team.md')])
    expect(found.diagnostics).toEqual([])
  })

  it('walks below a walked directory for a `**` without `/`, as picomatch matches it', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'a.md': 'a\n',
      'sub/b.md': 'b\n',
      'sub/c.txt': 'c\n',
    })
    const found = await discoverInstructions({
      cwd: repo,
      home: await homeListing(['**.md']),
      mode: 'opencode',
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'a.md'), join(repo, 'sub/b.md')])
  })

  it('reads at most 200 files per glob, the first by path, and says so', async () => {
    const names = (dir: string, count: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [
          `${dir}/f${String(i).padStart(3, '0')}.md`,
          `${dir} ${i}\n`,
        ]),
      )
    const repo = await fixtureTree({ '.git': { dir: true }, ...names('many', 201), ...names('some', 200) })
    const found = await discoverInstructions({
      cwd: repo,
      home: await homeListing(['many/*.md', 'some/*.md']),
      mode: 'opencode',
      // 400 files: past the default expansion budget of 200, which this test is not about.
      maxExpandedFiles: 1000,
    })
    const paths = found.files.map((f) => f.path)
    expect(paths.filter((p) => p.startsWith(join(repo, 'many')))).toEqual(
      Object.keys(names('many', 200)).map((rel) => join(repo, rel)),
    )
    expect(paths.filter((p) => p.startsWith(join(repo, 'some')))).toHaveLength(200)
    expect(diagnostics(found)).toEqual([
      [
        'harness-config',
        'info',
        `an instructions entry of ${USER_SOURCE} matches more than 200 files in .; only the first 200 were read. Narrow the glob.`,
      ],
    ])
  })
})
