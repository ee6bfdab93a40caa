import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// The opencode row of ANCHORS (opencode 1.18.33): the walk, the chosen name and the global file, as explained.
describe('opencode mode, explained', () => {
  it('describes its walk up to the git root, or to the file-system root outside a repository', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'a/AGENTS.md': 'a\n', 'b/AGENTS.md': 'b\n' })
    const inRepo = { cwd: join(repo, 'a'), home: await emptyHome(), mode: 'opencode' as const }
    expect(await explainInstructions({ ...inRepo, file: join(repo, 'b/AGENTS.md') })).toMatchObject({
      code: 'outside-walk',
      reason: `opencode mode reads the directories from the working directory ${join(repo, 'a')} up to the git root ${repo}; ${join(repo, 'b')} is not one of them`,
    })
    const base = await fixtureTree({ 'a/AGENTS.md': 'a\n', 'b/AGENTS.md': 'b\n' })
    const noRepo = { ...inRepo, cwd: join(base, 'a'), fsRoot: base }
    expect(await explainInstructions({ ...noRepo, file: join(base, 'b/AGENTS.md') })).toMatchObject({
      code: 'outside-walk',
      reason: `opencode mode reads every directory from the working directory ${join(base, 'a')} up to the file-system root ${base} (there is no git root); ${join(base, 'b')} is not one of them`,
    })
  })

  it('says which name it chose for the walk', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'CLAUDE.md': 'claude\n',
    })
    const options = { cwd: repo, home: await emptyHome(), mode: 'opencode' as const }
    expect(await explainInstructions({ ...options, file: 'CLAUDE.md' })).toMatchObject({
      status: 'skipped',
      code: 'name-not-chosen',
      reason:
        'opencode reads only AGENTS.md files: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found up the walk',
    })
  })

  it('loads a global file that is also on the walk once, as the global file', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const options = {
      cwd: repo,
      home: await emptyHome(),
      mode: 'opencode' as const,
      globalFiles: [join(repo, 'AGENTS.md')],
    }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(await explainInstructions({ ...options, file: 'AGENTS.md' })).toMatchObject({
      status: 'included',
      code: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })

  it('uses the first global file that exists, and says so of each later one that exists', async () => {
    const home = await fixtureTree({ 'one.md': 'one\n', 'three.md': 'three\n', 'four.md': 'four\n' })
    const options = {
      cwd: await fixtureTree({ '.git': { dir: true } }),
      home,
      mode: 'opencode' as const,
      globalFiles: ['one.md', 'two.md', 'three.md', 'four.md'].map((name) => join(home, name)),
    }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(home, 'one.md')])
    const lost = {
      status: 'skipped',
      code: 'name-lost',
      reason: "~/one.md is opencode's global file: only the first that exists is used",
    }
    expect(await explainInstructions({ ...options, file: join(home, 'three.md') })).toMatchObject(lost)
    expect(await explainInstructions({ ...options, file: join(home, 'four.md') })).toMatchObject(lost)
    expect(await explainInstructions({ ...options, file: join(home, 'two.md') })).not.toMatchObject({
      code: 'name-lost',
    })
  })

  it('falls back to no global file when the first that exists cannot be read', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const home = await fixtureTree({
      '.config/opencode/AGENTS.md': { link: join(outside, 'secret.md') },
      '.claude/CLAUDE.md': 'not used: opencode took the first that exists\n',
    })
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(home, '.config/opencode/AGENTS.md')],
    ])
  })
})
