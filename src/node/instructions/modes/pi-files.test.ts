import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// The pi row of ANCHORS (pi 0.73.1): its walk, its global files and its SYSTEM.md / APPEND_SYSTEM.md.
describe('pi mode, explained', () => {
  it('describes its walk to the file-system root, ignoring git', async () => {
    const base = await fixtureTree({ 'repo/.git': { dir: true }, 'repo/deeper/AGENTS.md': 'below cwd\n' })
    const cwd = join(base, 'repo')
    const why = await explainInstructions({
      cwd,
      home: await emptyHome(),
      mode: 'pi',
      fsRoot: base,
      file: 'deeper/AGENTS.md',
    })
    expect(why).toMatchObject({
      code: 'outside-walk',
      reason: `pi mode reads every directory from the working directory ${cwd} up to the file-system root ${base}, ignoring git; ${join(cwd, 'deeper')} is not one of them`,
    })
  })

  it('leaves out a global file it may not read and still loads the project', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const home = await fixtureTree({ 'pi/AGENTS.md': { link: join(outside, 'secret.md') } })
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'pi',
      fsRoot: repo,
      globalFiles: [join(home, 'pi/AGENTS.md')],
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(home, 'pi/AGENTS.md')],
    ])
  })

  it('loads a global file that is also on the walk once, as the global file', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const options = {
      cwd: repo,
      home: await emptyHome(),
      mode: 'pi' as const,
      fsRoot: repo,
      globalFiles: [join(repo, 'AGENTS.md')],
    }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(await explainInstructions({ ...options, file: 'AGENTS.md' })).toMatchObject({
      status: 'included',
      code: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })

  it("takes the user's SYSTEM.md when the project's is refused, and skips a directory of that name", async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      '.pi/SYSTEM.md': { link: join(outside, 'secret.md') },
      '.pi/APPEND_SYSTEM.md': { dir: true },
    })
    const home = await fixtureTree({
      '.pi/agent/SYSTEM.md': 'You are mine.\n',
      '.pi/agent/APPEND_SYSTEM.md': 'Also this.\n',
    })
    // A trusted project (pi 1.x reads the project's SYSTEM.md only then; 0.73.1 always did).
    const options = { cwd: repo, home, mode: 'pi' as const, fsRoot: repo, harnessConfig: ['trust=yes'] }
    const found = await discoverInstructions(options)
    expect(found.harness.parts.map((p) => p.files)).toEqual([
      [join(home, '.pi/agent/SYSTEM.md'), join(home, '.pi/agent/APPEND_SYSTEM.md'), join(repo, 'AGENTS.md')],
    ])
    expect(found.harness.parts[0]!.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(repo, '.pi/SYSTEM.md')],
    ])
    expect(await explainInstructions({ ...options, file: join(home, '.pi/agent/SYSTEM.md') })).toMatchObject({
      status: 'included',
      code: 'included',
      reason: "it replaces pi's base prompt (SYSTEM.md in ~/.pi/agent)",
    })
    expect(
      await explainInstructions({ ...options, file: join(home, '.pi/agent/APPEND_SYSTEM.md') }),
    ).toMatchObject({
      status: 'included',
      code: 'included',
      reason: "it is appended to pi's base prompt (APPEND_SYSTEM.md in ~/.pi/agent)",
    })
  })
})
