import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

const SET_BY = '--harness-config instructionFiles'

/** A repository with the given files, as cwd and walk root, and a home of its own. */
async function repo(files: Record<string, string>, home?: string) {
  const base = await fixtureTree({ '.git': { dir: true }, ...files })
  return {
    base,
    options: { cwd: base, home: home ?? (await emptyHome()), mode: 'claude' as const, fsRoot: base },
  }
}

// Claude Code's instructionFiles (its agents-md plugin, 2.1.332) and the versions before it (ANCHORS).
describe('claude mode: AGENTS.md by instructionFiles', () => {
  it('by default reads AGENTS.md only when no CLAUDE.md, not even .claude/CLAUDE.md, is on the walk', async () => {
    const { base, options } = await repo({ '.claude/CLAUDE.md': 'in .claude\n', 'AGENTS.md': 'agents\n' })
    expect((await discoverInstructions(options)).files.map((f) => f.path)).toEqual([
      join(base, '.claude/CLAUDE.md'),
    ])
    expect(await explainInstructions({ ...options, file: 'AGENTS.md' })).toMatchObject({
      code: 'fallback-unused',
      reason: 'Claude Code reads AGENTS.md only when no CLAUDE.md exists from the working directory upward',
    })
    const alone = await repo({ 'AGENTS.md': 'agents\n' })
    expect(await explainInstructions({ ...alone.options, file: 'AGENTS.md' })).toMatchObject({
      code: 'included',
      reason: 'loaded from ., file 1 in load order',
    })
  })

  it('reads AGENTS.md beside CLAUDE.md when set to, and says the setting decided it', async () => {
    const { base, options } = await repo({ 'CLAUDE.md': 'claude\n', 'AGENTS.md': 'agents\n' })
    const both = { ...options, harnessConfig: ['instructionFiles=claude-md-and-agents-md'] }
    expect((await discoverInstructions(both)).files.map((f) => f.path)).toEqual([
      join(base, 'CLAUDE.md'),
      join(base, 'AGENTS.md'),
    ])
    expect(await explainInstructions({ ...both, file: 'CLAUDE.md' })).toMatchObject({
      reason: 'loaded from ., file 1 in load order',
    })
    expect(await explainInstructions({ ...both, file: 'AGENTS.md' })).toMatchObject({
      code: 'included',
      reason: `loaded from ., file 2 in load order (decided by instructionFiles claude-md-and-agents-md (${SET_BY}))`,
    })
  })

  it('never reads AGENTS.md with claude-md, nor in a version before instructionFiles, and says which', async () => {
    const { options } = await repo({ 'CLAUDE.md': 'claude\n', 'AGENTS.md': 'agents\n' })
    expect(
      await explainInstructions({
        ...options,
        harnessConfig: ['instructionFiles=claude-md'],
        file: 'AGENTS.md',
      }),
    ).toMatchObject({
      code: 'fallback-unused',
      reason: `Claude Code does not read AGENTS.md with instructionFiles claude-md (${SET_BY})`,
    })
    expect(
      await explainInstructions({ ...options, harnessVersion: '2.1.200', file: 'AGENTS.md' }),
    ).toMatchObject({
      code: 'fallback-unused',
      reason: 'Claude Code never reads AGENTS.md in the Claude Code 2.1.200 profile, before 2.1.277',
    })
  })

  it('tells that instructionFiles has no effect in a version before it', async () => {
    const { base, options } = await repo({ 'CLAUDE.md': 'claude\n', 'AGENTS.md': 'agents\n' })
    const found = await discoverInstructions({
      ...options,
      harnessVersion: '2.1.200',
      harnessConfig: ['instructionFiles=claude-md-and-agents-md'],
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'CLAUDE.md')])
    expect(found.diagnostics).toEqual([
      {
        code: 'harness-config',
        severity: 'info',
        message: `${SET_BY} has no effect in Claude Code 2.1.200 (before 2.1.277: AGENTS.md is never read (no instructionFiles setting yet)).`,
      },
    ])
  })

  it('loads no user or project file with managed-only, and says so for each', async () => {
    const home = await fixtureTree({ '.claude/CLAUDE.md': 'global\n', '.claude/rules/mine.md': 'mine\n' })
    const { base, options } = await repo(
      { 'CLAUDE.md': 'claude\n', 'AGENTS.md': 'agents\n', 'CLAUDE.local.md': 'local\n' },
      home,
    )
    const managed = { ...options, harnessConfig: ['instructionFiles=managed-only'] }
    expect((await discoverInstructions(managed)).files).toEqual([])
    const files = [
      join(home, '.claude/CLAUDE.md'),
      join(home, '.claude/rules/mine.md'),
      ...['CLAUDE.md', 'AGENTS.md', 'CLAUDE.local.md'].map((name) => join(base, name)),
    ]
    for (const file of files)
      expect(await explainInstructions({ ...managed, file })).toMatchObject({
        code: 'not-a-candidate',
        reason: `Claude Code loads only managed policy files at start with instructionFiles managed-only (${SET_BY})`,
      })
  })
})
