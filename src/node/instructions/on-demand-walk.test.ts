import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createContext } from './create-context.js'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { dirsBelow, fires, resolveOnDemand } from './on-demand.js'
import { loadFound } from './read.js'

// The walk below cwd for files loaded on demand (its order, what it leaves
// out), which nested files count, and how a glob trigger is read.

afterAll(removeFixtures)

describe('dirsBelow', () => {
  it('lists the directories below, breadth first and by name, dot-directories too, without node_modules or links', async () => {
    const base = await fixtureTree({
      'c/z': { dir: true },
      'a/y': { dir: true },
      'b/x': { dir: true },
      '.hidden/w': { dir: true },
      node_modules: { dir: true },
      'file.md': 'not a directory\n',
      link: { link: 'c' },
    })
    const context = await createContext({ cwd: base, home: await emptyHome(), mode: 'claude', fsRoot: base })
    expect(await dirsBelow(context, base)).toEqual(
      ['.hidden', 'a', 'b', 'c', '.hidden/w', 'a/y', 'b/x', 'c/z'].map((dir) => join(base, dir)),
    )
    expect(await dirsBelow(context, join(base, 'missing'))).toEqual([])
    // By UTF-16 code units, whatever order the file system lists them in (byte order puts U+FF61 first).
    const wide = await fixtureTree({ '\uFF61': { dir: true }, '\u{1F600}': { dir: true } })
    expect(await dirsBelow(context, wide)).toEqual([join(wide, '\u{1F600}'), join(wide, '\uFF61')])
  })
})

describe('nested files on demand', () => {
  it('leaves out blank files, directories of the name and files that cannot be read', async () => {
    const outside = await fixtureTree({ 'CLAUDE.md': 'elsewhere\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': 'root\n',
      'blank/CLAUDE.md': ' \n\n',
      'empty/CLAUDE.md': '',
      'dir/CLAUDE.md': { dir: true },
      'linked/CLAUDE.md': { link: join(outside, 'CLAUDE.md') },
      'real/CLAUDE.md': 'real\n',
    })
    const options = { cwd: repo, home: await emptyHome(), mode: 'claude' as const, fsRoot: repo }
    const found = await discoverInstructions(options)
    expect(found.onDemand.map((f) => f.path)).toEqual([join(repo, 'real/CLAUDE.md')])
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(repo, 'linked/CLAUDE.md')],
    ])
    const why = await explainInstructions({ ...options, file: 'missing/CLAUDE.md' })
    expect(why.code).not.toBe('missing')
  })

  it('lists a candidate found twice once', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'pkg/CLAUDE.md': 'pkg\n' })
    const context = await createContext({ cwd: repo, home: await emptyHome(), mode: 'claude', fsRoot: repo })
    const loaded = (await loadFound(context, join(repo, 'pkg/CLAUDE.md'), [repo]))!
    const candidate = { loaded, trigger: { kind: 'under' as const, dir: join(repo, 'pkg') }, text: 'pkg\n' }
    const { onDemand } = resolveOnDemand(context, [candidate, candidate])
    expect(onDemand.map((f) => f.path)).toEqual([join(repo, 'pkg/CLAUDE.md')])
  })
})

describe('glob triggers', () => {
  it('name every glob of a rule, comma-separated', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      '.cursor/rules/web.mdc': '---\nglobs: ["*.ts", "*.tsx"]\n---\nweb rule\n',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'cursor' })
    expect(found.onDemand.map((f) => f.when)).toEqual(['when the agent reads a file matching *.ts, *.tsx'])
  })

  it('never fire outside their base, and read a leading / as the base', () => {
    const up = { kind: 'matches' as const, globs: ['../**'], base: '/p/pkg' }
    expect(fires(up, '/p/other/a.ts')).toBe(false)
    const rooted = { kind: 'matches' as const, globs: ['/src/*.ts'], base: '/p' }
    expect(fires(rooted, '/p/src/a.ts')).toBe(true)
    expect(fires(rooted, '/p/lib/a.ts')).toBe(false)
  })
})
