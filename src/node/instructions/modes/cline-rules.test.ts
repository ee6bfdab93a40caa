import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Cline's rules (docs.cline.bot/features/cline-rules): which files it reads,
// in what order, and what explain says of the files it does not read.
describe('cline mode rules', () => {
  it('orders .clinerules/ by numeric prefix (names without one last, then by name) and reads only its .md files, below too', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.clinerules/10-a.md': 'ten\n',
      '.clinerules/2-b.md': 'two\n',
      '.clinerules/01-z.md': 'one\n',
      '.clinerules/b3.md': 'no prefix\n',
      '.clinerules/a.md': 'no prefix either\n',
      '.clinerules/notes.txt': 'not a rule\n',
      '.clinerules/sub/03-c.md': 'three\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cline' })
    expect(found.files.map((f) => f.path)).toEqual(
      ['01-z.md', '2-b.md', 'sub/03-c.md', '10-a.md', 'a.md', 'b3.md'].map((n) =>
        join(root, '.clinerules', n),
      ),
    )
    expect(found.text).not.toContain('not a rule')
  })

  it('leaves out .clinerules/workflows, hooks and skills, which are not rules, at the top only', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.clinerules/style.md': 'style\n',
      '.clinerules/workflows/release.md': 'a workflow\n',
      '.clinerules/hooks/README.md': 'hooks\n',
      '.clinerules/skills/pdf/SKILL.md': 'a skill\n',
      '.clinerules/team/workflows/notes.md': 'a rule in a folder named workflows below\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cline' })
    expect(found.files.map((f) => f.path)).toEqual(
      ['style.md', 'team/workflows/notes.md'].map((n) => join(root, '.clinerules', n)),
    )
  })

  it('without .clinerules reads .cline/rules/*.md (not below), then .cursorrules and .windsurfrules', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.cline/rules/a.md': 'cline rule\n',
      '.cline/rules/b.txt': 'not a rule\n',
      '.cline/rules/sub/c.md': 'too deep\n',
      '.cursorrules': 'cursor\n',
      '.windsurfrules': 'windsurf\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cline' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(root, '.cline/rules/a.md'),
      join(root, '.cursorrules'),
      join(root, '.windsurfrules'),
    ])
  })

  it('with a .clinerules file, explains a fallback that is present as unused and one that is absent as missing', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.clinerules': 'one file\n',
      '.cursorrules': 'cursor\n',
    })
    const base = { cwd: root, home: await emptyHome(), mode: 'cline' as const }
    const found = await discoverInstructions(base)
    expect(found.files.map((f) => f.path)).toEqual([join(root, '.clinerules')])
    expect(await explainInstructions({ ...base, file: '.cursorrules' })).toMatchObject({
      code: 'fallback-unused',
    })
    expect(await explainInstructions({ ...base, file: '.windsurfrules' })).toMatchObject({
      code: 'missing',
      reason: 'there is no file .windsurfrules',
    })
  })

  it('explains each file name it reads at the root as missing when absent, and a name elsewhere as outside its walk', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, '.github/.cursorrules': 'elsewhere\n' })
    const base = { cwd: root, home: await emptyHome(), mode: 'cline' as const }
    for (const name of ['.clinerules', 'AGENTS.md', '.cursorrules', '.windsurfrules'])
      expect(await explainInstructions({ ...base, file: name }), name).toMatchObject({
        code: 'missing',
        reason: `there is no file ${name}`,
      })
    expect(await explainInstructions({ ...base, file: '.github/.cursorrules' })).toMatchObject({
      code: 'outside-walk',
      reason: `cline mode reads the workspace root ${root} and, for AGENTS.md, every directory below it; ${join(root, '.github')} is not one of them`,
    })
  })

  it('reads the global rules (.md only, not below) as global instructions, each confined to its own directory', async () => {
    const root = await fixtureTree({ '.git': { dir: true } })
    const home = await fixtureTree({
      'Documents/Cline/Rules/a.md': 'mine\n',
      'Documents/Cline/Rules/b.txt': 'not a rule\n',
      'Documents/Cline/Rules/sub/c.md': 'too deep\n',
      'Documents/Cline/Rules/base.txt': 'linked beside\n',
      'Documents/Cline/Rules/linked.md': { link: 'base.txt' },
      'Documents/Cline/Rules/leak.md': { link: '../../../secret.md' },
      'secret.md': 'SECRET\n',
    })
    const rules = join(home, 'Documents/Cline/Rules')
    const found = await discoverInstructions({ cwd: root, home, mode: 'cline' })
    expect(found.files.map((f) => f.path)).toEqual([join(rules, 'a.md'), join(rules, 'linked.md')])
    expect(found.text).toContain('linked beside')
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([['outside-root', join(rules, 'leak.md')]])
    const why = await explainInstructions({ cwd: root, home, mode: 'cline', file: join(rules, 'a.md') })
    expect(why).toMatchObject({
      code: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })
})
