import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Expected lists follow the opencode row of ANCHORS (opencode 1.18.33).
describe('opencode mode', () => {
  async function tree() {
    const base = await fixtureTree({
      'AGENTS.md': 'above the git root\n',
      'repo/.git': { dir: true },
      'repo/AGENTS.md': 'root agents\n',
      'repo/pkg/CLAUDE.md': 'pkg claude: not chosen\n',
      'repo/pkg/app/AGENTS.md': 'app agents\n',
      'repo/pkg/app/CONTEXT.md': 'context: not chosen\n',
    })
    return { base, repo: join(base, 'repo') }
  }

  it('picks the first name found up the walk for the whole walk, nearest first, up to the git root', async () => {
    const { repo } = await tree()
    const home = await fixtureTree({
      '.config/opencode/AGENTS.md': 'global\n',
      '.claude/CLAUDE.md': 'fallback\n',
    })
    const options = { cwd: join(repo, 'pkg/app'), home, mode: 'opencode' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.config/opencode/AGENTS.md'),
      join(repo, 'pkg/app/AGENTS.md'),
      join(repo, 'AGENTS.md'),
    ])
    expect(found.text).toBe(
      '<!-- ~/.config/opencode/AGENTS.md -->\nglobal\n\n<!-- pkg/app/AGENTS.md -->\napp agents\n\n<!-- AGENTS.md -->\nroot agents\n',
    )
    expect(await explainInstructions({ ...options, file: join(repo, 'pkg/CLAUDE.md') })).toMatchObject({
      code: 'name-not-chosen',
    })
    expect(await explainInstructions({ ...options, file: join(home, '.claude/CLAUDE.md') })).toMatchObject({
      code: 'name-lost',
    })
  })

  it('falls back to ~/.claude/CLAUDE.md and reads CLAUDE.md when no AGENTS.md is on the walk', async () => {
    const { repo } = await tree()
    const home = await fixtureTree({ '.claude/CLAUDE.md': 'fallback global\n' })
    const found = await discoverInstructions({
      cwd: join(repo, 'pkg'),
      home,
      mode: 'opencode',
      root: join(repo, 'pkg'),
    })
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.claude/CLAUDE.md'),
      join(repo, 'pkg/CLAUDE.md'),
    ])
  })

  it('walks up to the file-system root outside a git repository', async () => {
    const base = await fixtureTree({
      'AGENTS.md': 'top\n',
      'a/AGENTS.md': 'a\n',
      'a/b/CLAUDE.md': 'ignored\n',
    })
    const found = await discoverInstructions({
      cwd: join(base, 'a/b'),
      home: await emptyHome(),
      mode: 'opencode',
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'a/AGENTS.md'), join(base, 'AGENTS.md')])
  })
})
