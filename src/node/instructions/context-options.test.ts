import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

// What the discovery options resolve to (fsRoot, the working paths, a bad
// --harness-config), the shape of a diagnostic, and a re-import that never
// hides a file that was loaded.

afterAll(removeFixtures)

describe('discovery options', () => {
  it('stops the upward walk at fsRoot', async () => {
    const outer = await fixtureTree({ 'CLAUDE.md': 'outer\n', 'inner/CLAUDE.md': 'inner\n' })
    const inner = join(outer, 'inner')
    const home = await emptyHome()
    const walled = await discoverInstructions({ cwd: inner, home, mode: 'claude', fsRoot: inner })
    expect(walled.files.map((f) => f.path)).toEqual([join(inner, 'CLAUDE.md')])
    const open = await discoverInstructions({ cwd: inner, home, mode: 'claude', fsRoot: outer })
    expect(open.files.map((f) => f.path)).toEqual([join(outer, 'CLAUDE.md'), join(inner, 'CLAUDE.md')])
  })

  it('without working paths, a rule for every file stays on demand', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      '.cursor/rules/all.mdc': '---\nglobs: "*"\n---\nevery file\n',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'cursor' })
    expect(found.onDemand.map((f) => [f.path, f.loadedFor])).toEqual([
      [join(repo, '.cursor/rules/all.mdc'), []],
    ])
    expect(found.lateBound).toEqual([])
  })

  it('rejects a bad --harness-config entry with its own words', async () => {
    const repo = await fixtureTree({ '.git': { dir: true } })
    await expect(
      discoverInstructions({
        cwd: repo,
        home: await emptyHome(),
        mode: 'codex',
        harnessConfig: ['nonsense'],
      }),
    ).rejects.toThrow(
      new TypeError(
        '--harness-config expects KEY=VALUE; codex mode accepts project_doc_max_bytes, project_doc_fallback_filenames',
      ),
    )
  })
})

describe('diagnostics', () => {
  it('carry a path and a site only when they have one', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'opencode.json': '{ "instructions": ["https://example.com/x.md"] }',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'opencode' })
    expect(found.diagnostics).toStrictEqual([
      {
        code: 'harness-config',
        severity: 'info',
        message:
          'an instructions entry of instructions in opencode.json is a URL: opencode fetches it, sysprompt never fetches, so it is left out.',
      },
    ])
    const codex = await fixtureTree({ '.git': { dir: true }, '.codex/config.toml': '' })
    const untrusted = await discoverInstructions({ cwd: codex, home: await emptyHome(), mode: 'codex' })
    expect(untrusted.diagnostics).toStrictEqual([
      {
        code: 'harness-config',
        severity: 'info',
        message: expect.stringContaining('.codex/config.toml was not read'),
        path: join(codex, '.codex/config.toml'),
      },
    ])
  })
})

describe('decisions', () => {
  it('a file that imports itself is still explained as loaded', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'CLAUDE.md': 'claude\n@CLAUDE.md\n' })
    const options = { cwd: repo, home: await emptyHome(), mode: 'claude' as const, fsRoot: repo }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'CLAUDE.md')])
    expect(await explainInstructions({ ...options, file: 'CLAUDE.md' })).toMatchObject({
      status: 'included',
      code: 'included',
    })
  })
})
