import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { ZED_NAMES } from './zed.js'

afterAll(removeFixtures)

// Zed reads the first of its list at the worktree root (zed.dev/docs/ai/rules):
// explain says a name of the list that is absent is missing, and the same
// name anywhere else lies outside what Zed reads.
describe('zed mode explanations', () => {
  it('explains every name of its list as missing at the worktree root, .github/copilot-instructions.md included', async () => {
    const root = await fixtureTree({ '.git': { dir: true } })
    const base = { cwd: root, home: await emptyHome(), mode: 'zed' as const }
    for (const name of ZED_NAMES)
      expect(await explainInstructions({ ...base, file: name }), name).toMatchObject({
        code: 'missing',
        reason: `there is no file ${name}`,
      })
  })

  it('explains a listed name in another directory as outside the worktree root it reads', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, 'docs/.rules': 'not read\n' })
    const why = await explainInstructions({
      cwd: root,
      home: await emptyHome(),
      mode: 'zed',
      file: 'docs/.rules',
    })
    expect(why).toMatchObject({
      code: 'outside-walk',
      reason: `zed mode reads the worktree root ${root}; ${join(root, 'docs')} is not one of them`,
    })
  })
})
