import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Where Windsurf looks (docs.windsurf.com/windsurf/cascade/memories, "Rules
// discovery"; docs.windsurf.com/windsurf/cascade/agents-md, "Discovery and
// scoping"): `.windsurf/rules` in the workspace, in each of its
// subdirectories and in its parents up to the git root; AGENTS.md by a name
// matched without regard to case.
describe('windsurf mode discovery', () => {
  it('reads .windsurf/rules below the workspace and up to the git root, not beside it', async () => {
    const always = (name: string) => `---\ntrigger: always_on\n---\n${name}.\n`
    const root = await fixtureTree({
      '.git': { dir: true },
      '.windsurf/rules/top.md': always('Top'),
      'app/.windsurf/rules/app.md': always('App'),
      'app/feature/.windsurf/rules/feature.md': always('Feature'),
      'app/feature/deep/.windsurf/rules/deep.md': always('Deep'),
      'other/.windsurf/rules/other.md': always('Other'),
    })
    const cwd = join(root, 'app')
    const found = await discoverInstructions({ cwd, home: await emptyHome(), mode: 'windsurf' })
    expect(found.files.map((f) => [f.path, f.activation])).toEqual([
      [join(root, '.windsurf/rules/top.md'), 'always'],
      [join(cwd, '.windsurf/rules/app.md'), 'always'],
      [join(cwd, 'feature/.windsurf/rules/feature.md'), 'always'],
      [join(cwd, 'feature/deep/.windsurf/rules/deep.md'), 'always'],
    ])
    expect(found.text).not.toContain('Other.')
  })

  it('recognises agents.md as AGENTS.md, at the root and in a subdirectory', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'agents.md': 'Lower case at the root.\n',
      'web/agents.md': 'Lower case below.\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'windsurf' })
    expect(found.files.map((f) => [f.path, f.activation])).toEqual([[join(root, 'agents.md'), 'always']])
    expect(found.onDemand.map((f) => [f.path, f.activation, f.trigger])).toEqual([
      [join(root, 'web/agents.md'), 'glob', { kind: 'matches', globs: ['**'], base: join(root, 'web') }],
    ])
  })
})
