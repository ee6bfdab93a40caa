import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

afterAll(removeFixtures)

describe('explainInstructions', () => {
  async function repo() {
    return fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n@notes.md\n',
      'notes.md': 'notes\n',
      'pkg/AGENTS.md': 'pkg\n',
      'README.md': 'not an instruction file\n',
    })
  }

  it('says where an included file was loaded from and in which position', async () => {
    const root = await repo()
    const why = await explainInstructions({
      cwd: join(root, 'pkg'),
      home: await emptyHome(),
      file: 'AGENTS.md',
    })
    expect(why).toEqual({
      file: join(root, 'pkg/AGENTS.md'),
      status: 'included',
      code: 'included',
      reason: 'loaded from pkg, file 2 in load order',
    })
  })

  it('says an imported file was inlined by its importer', async () => {
    const root = await repo()
    const why = await explainInstructions({ cwd: root, home: await emptyHome(), file: 'notes.md' })
    expect(why).toMatchObject({
      status: 'included',
      code: 'imported',
      reason: 'inlined where AGENTS.md imports it',
    })
  })

  it('tells a file no rule names from one that is simply missing', async () => {
    const root = await repo()
    const home = await emptyHome()
    expect(await explainInstructions({ cwd: root, home, file: 'README.md' })).toEqual({
      file: join(root, 'README.md'),
      status: 'skipped',
      code: 'not-a-candidate',
      reason:
        'sysprompt mode reads only AGENTS.override.md, AGENTS.md in each directory, and no loaded file imports README.md',
    })
    expect(await explainInstructions({ cwd: join(root, 'pkg'), home, file: '../nowhere/AGENTS.md' })).toEqual(
      {
        file: join(root, 'nowhere/AGENTS.md'),
        status: 'skipped',
        code: 'outside-walk',
        reason: `sysprompt mode reads the directories from the project root ${root} down to the working directory ${join(root, 'pkg')}; ${join(root, 'nowhere')} is not one of them`,
      },
    )
    expect(await explainInstructions({ cwd: root, home, file: 'pkg/AGENTS.md' })).toMatchObject({
      code: 'outside-walk',
    })
    const empty = await fixtureTree({ '.git': { dir: true } })
    expect(await explainInstructions({ cwd: empty, home, file: 'AGENTS.md' })).toMatchObject({
      status: 'skipped',
      code: 'missing',
      reason: 'there is no file AGENTS.md',
    })
  })

  it('answers for a file named through a link to its directory as for the file itself', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n',
      '.cursor/rules/ask.mdc': '---\ndescription: Database migrations\n---\nMigrations are append-only.\n',
      linked: { link: '.' },
      rules: { link: '.cursor/rules' },
    })
    const home = await emptyHome()
    expect(await explainInstructions({ cwd: root, home, file: 'linked/AGENTS.md' })).toEqual({
      file: join(root, 'AGENTS.md'),
      status: 'included',
      code: 'included',
      reason: 'loaded from ., file 1 in load order',
    })
    expect(
      await explainInstructions({ cwd: root, home, mode: 'cursor', file: 'rules/ask.mdc' }),
    ).toMatchObject({
      file: join(root, '.cursor/rules/ask.mdc'),
      status: 'skipped',
      code: 'on-request',
      activation: 'requested',
    })
  })

  it('says which name won in a directory holding two candidates', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.override.md': 'override\n',
      'AGENTS.md': 'plain\n',
    })
    expect(await explainInstructions({ cwd: root, home: await emptyHome(), file: 'AGENTS.md' })).toEqual({
      file: join(root, 'AGENTS.md'),
      status: 'skipped',
      code: 'name-lost',
      reason:
        'AGENTS.override.md won in that directory: one file per directory, the first of AGENTS.override.md, AGENTS.md',
    })
  })

  it('says an import through a link back into its own chain closes a cycle', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'top\n@a.md\n',
      'a.md': 'a\n@again.md\n',
      'again.md': { link: 'a.md' },
    })
    expect(await explainInstructions({ cwd: root, home: await emptyHome(), file: 'again.md' })).toEqual({
      file: join(root, 'again.md'),
      status: 'skipped',
      code: 'import-cycle',
      reason: 'its import by a.md closes a cycle (AGENTS.md → a.md → a.md), so it was not followed there',
    })
  })

  it('says an import a harness loads as its own block is one, and what a per-file limit cut', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': 'root\n@notes.md\n',
      'notes.md': 'notes\n',
      '.windsurf/rules/big.md': `---\ntrigger: always_on\n---\n${'x'.repeat(12_010)}\n`,
    })
    const home = await emptyHome()
    expect(
      await explainInstructions({ cwd: root, home, mode: 'claude', fsRoot: root, file: 'notes.md' }),
    ).toMatchObject({
      status: 'included',
      code: 'included',
      reason: 'loaded as its own block (imported by CLAUDE.md), file 2 in load order',
    })
    // 12 011 characters after the front matter; Windsurf reads 12 000 of them.
    expect(
      await explainInstructions({ cwd: root, home, mode: 'windsurf', file: '.windsurf/rules/big.md' }),
    ).toMatchObject({
      status: 'truncated',
      code: 'truncated',
      reason: '11 of its characters were cut (Windsurf reads 12 000 characters of a rule file)',
    })
  })

  it('says a file met twice is loaded once', async () => {
    const home = await fixtureTree({ '.pi/agent/AGENTS.md': 'global\n' })
    const why = await explainInstructions({
      cwd: join(home, '.pi/agent'),
      home,
      mode: 'pi',
      fsRoot: home,
      file: 'AGENTS.md',
    })
    // Loaded as the global file; the walk meeting it again does not hide that.
    expect(why).toMatchObject({
      status: 'included',
      code: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })
})
