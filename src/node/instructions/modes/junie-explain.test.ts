import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Junie reads one guidelines file (junie.jetbrains.com/docs/guidelines-and-memory.html):
// .junie/guidelines.md, else AGENTS.md; explain tells an absent one from a
// losing one and from a name it does not read there.
describe('junie mode explanations', () => {
  it('explains .junie/guidelines.md and AGENTS.md as missing when absent', async () => {
    const root = await fixtureTree({ '.git': { dir: true } })
    const base = { cwd: root, home: await emptyHome(), mode: 'junie' as const }
    for (const name of ['.junie/guidelines.md', 'AGENTS.md'])
      expect(await explainInstructions({ ...base, file: name }), name).toMatchObject({
        code: 'missing',
        reason: `there is no file ${name}`,
      })
  })

  it('reads .junie/guidelines.md alone and explains an absent AGENTS.md as missing, not as lost', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, '.junie/guidelines.md': 'guidelines\n' })
    const base = { cwd: root, home: await emptyHome(), mode: 'junie' as const }
    const found = await discoverInstructions(base)
    expect(found.files.map((f) => f.path)).toEqual([join(root, '.junie/guidelines.md')])
    expect(await explainInstructions({ ...base, file: 'AGENTS.md' })).toMatchObject({ code: 'missing' })
  })

  it('explains a guidelines file in another directory as outside the project root it reads', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, 'docs/AGENTS.md': 'not read\n' })
    const why = await explainInstructions({
      cwd: root,
      home: await emptyHome(),
      mode: 'junie',
      file: 'docs/AGENTS.md',
    })
    expect(why).toMatchObject({
      code: 'outside-walk',
      reason: `junie mode reads the project root ${root}; ${join(root, 'docs')} is not one of them`,
    })
  })
})
