import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import type { InstructionMode } from '../discovery-options.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { harnessName } from '../withheld.js'

afterAll(removeFixtures)

// Modes that walk above the project root (to the file-system root, as their
// harness does) confine each file found there to its own directory: a link
// in a parent directory cannot make discovery read a file elsewhere.
describe('a link above the root, in the modes that walk there', () => {
  const cases: [InstructionMode, Record<string, string>][] = [
    ['opencode', { 'AGENTS.md': 'AGENTS.md' }],
    ['claude', { 'CLAUDE.md': 'CLAUDE.md', '.claude/rules/r.md': '.claude/rules/r.md' }],
    ['pi', { 'AGENTS.md': 'AGENTS.md' }],
  ]
  it.each(cases)('%s reads none of its target and says why', async (mode, links) => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const base = await fixtureTree({
      ...Object.fromEntries(Object.values(links).map((rel) => [rel, { link: join(outside, 'secret.md') }])),
      'work/AGENTS.md': 'work\n',
      'work/CLAUDE.md': 'work\n',
    })
    const found = await discoverInstructions({
      cwd: join(base, 'work'),
      home: await emptyHome(),
      mode,
      fsRoot: base,
    })
    expect(found.text).not.toContain('SECRET')
    expect(found.files.map((f) => f.path).filter((p) => !p.startsWith(join(base, 'work')))).toEqual([])
    for (const rel of Object.values(links))
      expect(found.diagnostics, rel).toContainEqual({
        code: 'outside-root',
        severity: 'warning',
        message: `../${rel}: links to ${join(outside, 'secret.md')}, outside ${base}; it was not read (${harnessName(mode)} would send it). Replace the link with the file itself.`,
        path: join(base, rel),
      })
  })
})
