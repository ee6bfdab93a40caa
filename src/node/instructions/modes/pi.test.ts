import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Expected lists follow the pi row of ANCHORS (pi 0.73.1).
describe('pi mode', () => {
  it('walks from cwd to the file-system root ignoring git, one file per directory, outermost first', async () => {
    const base = await fixtureTree({
      'AGENTS.md': 'above the repository\n',
      'repo/.git': { dir: true },
      'repo/CLAUDE.md': 'root, Claude name\n',
      'repo/pkg/AGENTS.MD': 'pkg, upper-case name\n',
      'repo/pkg/CLAUDE.md': 'loses to AGENTS.MD\n',
      'repo/pkg/app/AGENTS.md': 'app\n',
      'repo/pkg/app/GEMINI.md': 'not a pi name\n',
      'repo/pkg/app/deeper/AGENTS.md': 'below cwd\n',
    })
    const home = await fixtureTree({ '.pi/agent/AGENTS.md': 'global\n', '.pi/agent/CLAUDE.md': 'loses\n' })
    const options = { cwd: join(base, 'repo/pkg/app'), home, mode: 'pi' as const, fsRoot: base }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.pi/agent/AGENTS.md'),
      join(base, 'AGENTS.md'),
      join(base, 'repo/CLAUDE.md'),
      join(base, 'repo/pkg/AGENTS.MD'),
      join(base, 'repo/pkg/app/AGENTS.md'),
    ])
    // The root is the git root: files above it are shown relative to it.
    expect(found.text.startsWith('<!-- ~/.pi/agent/AGENTS.md -->\nglobal\n\n<!-- ../AGENTS.md -->\n')).toBe(
      true,
    )
    expect(await explainInstructions({ ...options, file: join(base, 'repo/pkg/CLAUDE.md') })).toMatchObject({
      code: 'name-lost',
    })
    expect(await explainInstructions({ ...options, file: 'GEMINI.md' })).toMatchObject({
      code: 'not-a-candidate',
    })
    expect(await explainInstructions({ ...options, file: 'deeper/AGENTS.md' })).toMatchObject({
      code: 'outside-walk',
    })
  })

  it('does not follow a link above the root out of its own directory', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const base = await fixtureTree({
      'AGENTS.md': { link: join(outside, 'secret.md') },
      'work/AGENTS.md': 'work\n',
    })
    const found = await discoverInstructions({
      cwd: join(base, 'work'),
      home: await emptyHome(),
      mode: 'pi',
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'work/AGENTS.md')])
    expect(found.diagnostics.map((d) => d.code)).toEqual(['outside-root'])
  })
})
