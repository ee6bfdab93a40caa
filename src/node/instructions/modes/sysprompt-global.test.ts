import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// SPEC §6: sysprompt mode's global file comes first of all; one it may not read is left out.
describe('sysprompt mode, global files', () => {
  it('loads the global file as global instructions and leaves out one it may not read', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const home = await fixtureTree({ 'mine.md': 'mine\n', 'linked.md': { link: join(outside, 'secret.md') } })
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const options = {
      cwd: repo,
      home,
      globalFiles: [join(home, 'linked.md'), join(home, 'mine.md')],
    }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(home, 'mine.md'), join(repo, 'AGENTS.md')])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(home, 'linked.md')],
    ])
    expect(await explainInstructions({ ...options, file: join(home, 'mine.md') })).toMatchObject({
      status: 'included',
      code: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })
})
