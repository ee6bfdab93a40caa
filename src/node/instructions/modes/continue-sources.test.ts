import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

// Continue's own loader (core/config/markdown/loadMarkdownRules.ts): the
// root AGENTS.md always, rules from .continue/rules and .continue/prompts,
// and never a rule with invokable: true.

afterAll(removeFixtures)

describe('continue mode reads the folders Continue reads', () => {
  it('loads the root AGENTS.md and .continue/prompts rules, and leaves out invokable ones', async () => {
    const cwd = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root agents\n',
      'CLAUDE.md': 'never read by Continue\n',
      '.continue/rules/a.md': 'rule a\n',
      '.continue/prompts/p.md': 'prompt rule\n',
      '.continue/prompts/cmd.md': '---\ninvokable: true\n---\na slash command\n',
    })
    const options = { cwd, home: await emptyHome(), mode: 'continue' as const, fsRoot: cwd }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(cwd, 'AGENTS.md'),
      join(cwd, '.continue/rules/a.md'),
      join(cwd, '.continue/prompts/p.md'),
    ])
    const why = await explainInstructions({ ...options, file: '.continue/prompts/cmd.md' })
    expect(why).toMatchObject({ status: 'skipped', code: 'manual-rule' })
    expect(why.reason).toContain('invokable: true')
  })
})
