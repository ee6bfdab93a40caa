import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Where each harness puts its parts, in which role, carrying which files, and
// which framings are reproduced exactly (see harness-views.ts).
describe('harness view parts', () => {
  it('sysprompt: its own discovery text in the system prompt, exact', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'root\n', 'pkg/AGENTS.md': 'pkg\n' })
    const found = await discoverInstructions({
      cwd: join(repo, 'pkg'),
      home: await emptyHome(),
      mode: 'sysprompt',
    })
    expect(found.text).toBe('<!-- AGENTS.md -->\nroot\n\n<!-- pkg/AGENTS.md -->\npkg\n')
    expect(found.harness.parts).toEqual([
      {
        placement: 'system-prompt',
        role: 'system',
        text: found.text,
        compared: found.text,
        files: [join(repo, 'AGENTS.md'), join(repo, 'pkg/AGENTS.md')],
        marks: [],
        tokens: expect.any(Number),
        exact: true,
        withheld: [],
        // Each file's text maps to its first line; the header lines are sysprompt's own.
        sourceMap: [
          { start: 19, end: 24, path: join(repo, 'AGENTS.md'), line: 1, column: 1 },
          { start: 48, end: 52, path: join(repo, 'pkg/AGENTS.md'), line: 1, column: 1 },
        ],
      },
    ])
  })

  it('a convention mode: the discovery text in the system prompt and the rules of the working paths in a tool result, neither exact', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      '.cursor/rules/always.mdc': '---\nalwaysApply: true\n---\nAlways.\n',
      '.cursor/rules/a.mdc': '---\nglobs: "src/**/*.ts"\n---\nTS rule.\n',
      '.cursor/rules/b.mdc': '---\nglobs: "src/**/*.ts"\n---\nAnother TS rule.\n',
    })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'cursor',
      paths: ['src/x.ts'],
    })
    const rules = join(repo, '.cursor/rules')
    expect(found.harness.parts.map(({ tokens, ...p }) => p)).toEqual([
      {
        placement: 'system-prompt',
        role: 'system',
        text: '<!-- .cursor/rules/always.mdc -->\nAlways.\n',
        compared: '<!-- .cursor/rules/always.mdc -->\nAlways.\n',
        files: [join(rules, 'always.mdc')],
        marks: [],
        exact: false,
        withheld: [],
        // The rule's body starts on line 4, after its front matter.
        sourceMap: [{ start: 34, end: 42, path: join(rules, 'always.mdc'), line: 4, column: 1 }],
      },
      {
        placement: 'tool-result',
        role: 'tool',
        text: 'TS rule.\n\n\nAnother TS rule.\n',
        compared: 'TS rule.\n\n\nAnother TS rule.\n',
        files: [join(rules, 'a.mdc'), join(rules, 'b.mdc')],
        marks: [],
        exact: false,
        withheld: [],
        sourceMap: [
          { start: 0, end: 9, path: join(rules, 'a.mdc'), line: 4, column: 1 },
          { start: 11, end: 28, path: join(rules, 'b.mdc'), line: 4, column: 1 },
        ],
      },
    ])
  })

  it('claude: nested files of the working paths follow in a tool result, its framing not reproduced', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': 'root\n',
      'a/CLAUDE.md': 'A rules\n',
      'b/CLAUDE.md': 'B rules\n',
    })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: repo,
      paths: ['a/x.ts', 'b/y.ts'],
    })
    expect(found.harness.parts.map((p) => p.placement)).toEqual(['first-user-message', 'tool-result'])
    expect(found.harness.parts[1]).toMatchObject({
      role: 'tool',
      text: 'A rules\n\n\nB rules\n',
      files: [join(repo, 'a/CLAUDE.md'), join(repo, 'b/CLAUDE.md')],
      exact: false,
    })
  })

  it('opencode: in the system prompt, carrying its files nearest first', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'root\n', 'pkg/AGENTS.md': 'pkg\n' })
    const found = await discoverInstructions({
      cwd: join(repo, 'pkg'),
      home: await emptyHome(),
      mode: 'opencode',
    })
    expect(found.harness.parts).toMatchObject([
      {
        placement: 'system-prompt',
        role: 'system',
        files: [join(repo, 'pkg/AGENTS.md'), join(repo, 'AGENTS.md')],
      },
    ])
  })
})

// pi 0.73.1's framing: one text, the context files under headings.
describe('pi view', () => {
  it('sends SYSTEM.md alone, as it is, when there is no context file', async () => {
    const repo = await fixtureTree({ '.pi/SYSTEM.md': 'You are my agent.' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'pi',
      harnessVersion: '0.73.1',
      fsRoot: repo,
    })
    expect(found.harness.parts).toMatchObject([
      {
        placement: 'system-prompt',
        role: 'system',
        text: 'You are my agent.',
        files: [join(repo, '.pi/SYSTEM.md')],
      },
    ])
  })

  it('carries APPEND_SYSTEM.md and then the context files', async () => {
    const repo = await fixtureTree({ '.pi/APPEND_SYSTEM.md': 'Also this.', 'AGENTS.md': 'rules\n' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'pi',
      harnessVersion: '0.73.1',
      fsRoot: repo,
    })
    expect(found.harness.parts).toMatchObject([
      {
        text: `Also this.\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n## ${join(repo, 'AGENTS.md')}\n\nrules\n\n\n`,
        files: [join(repo, '.pi/APPEND_SYSTEM.md'), join(repo, 'AGENTS.md')],
      },
    ])
  })
})
