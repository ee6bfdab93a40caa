import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import type { InstructionDiscovery } from './discovery-results.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

afterAll(removeFixtures)

/** Each loaded file, relative to `root`, with whether the budget cut it. */
function cutFlags(root: string, found: InstructionDiscovery): [string, boolean][] {
  return found.files.map((file) => [relative(root, file.path), file.truncated])
}

// The nearest-first budget keeps the files nearest cwd first: how far a file
// lies from cwd, not its place in load order, decides which one a tight
// budget cuts. Amp includes a mentioned file right after the file that
// mentions it, so load order and distance disagree there.
describe('how far a file lies from the working directory, as the budget sees it', () => {
  it('counts a file in cwd nearer than one in its parent, though it loads first', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      // 23 bytes, in cwd; it mentions a file one directory up (6 bytes), loaded after it.
      'sub/AGENTS.md': 'sub rules\n@../notes.md\n',
      'notes.md': 'notes\n',
    })
    const options = { cwd: join(root, 'sub'), home: await emptyHome(), mode: 'amp' as const }
    expect(cutFlags(root, await discoverInstructions(options))).toEqual([
      ['sub/AGENTS.md', false],
      ['notes.md', false],
    ])
    const found = await discoverInstructions({ ...options, maxBytes: 23 })
    expect(cutFlags(root, found)).toEqual([
      ['sub/AGENTS.md', false],
      ['notes.md', true],
    ])
    expect(found.text).toContain('sub rules\n@../notes.md\n')
  })

  it('counts a file off the line from the root to cwd farther than any file on it', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      // 21 bytes, three directories above cwd; the guide lies beside cwd's parent, off the line.
      'AGENTS.md': 'root\n@a/b/x/guide.md\n',
      'a/b/x/guide.md': 'guide\n',
      'a/b/c/.keep': '',
    })
    const options = { cwd: join(root, 'a/b/c'), home: await emptyHome(), mode: 'amp' as const }
    const found = await discoverInstructions({ ...options, maxBytes: 21 })
    expect(cutFlags(root, found)).toEqual([
      ['AGENTS.md', false],
      ['a/b/x/guide.md', true],
    ])
  })

  it('counts a global file farthest, even one that lies in cwd', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'project rules\n',
      'sub/team.md': 'team rules\n',
    })
    const cwd = join(root, 'sub')
    const options = { cwd, home: await emptyHome(), globalFiles: [join(cwd, 'team.md')] }
    // The project file (14 bytes) fits whole; the global file, first in load order, gets nothing.
    const found = await discoverInstructions({ ...options, maxBytes: 14 })
    expect(cutFlags(root, found)).toEqual([
      ['sub/team.md', true],
      ['AGENTS.md', false],
    ])
  })
})

describe('the file names a mode tries', () => {
  it('ignores an empty name, also in the words of the name that lost', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'a\n', 'CLAUDE.md': 'c\n' })
    const options = { cwd: root, home: await emptyHome(), names: ['AGENTS.md', '', 'CLAUDE.md'] }
    expect((await discoverInstructions(options)).files.map((f) => f.path)).toEqual([join(root, 'AGENTS.md')])
    expect(await explainInstructions({ ...options, file: join(root, 'CLAUDE.md') })).toMatchObject({
      code: 'name-lost',
      reason:
        'AGENTS.md won in that directory: one file per directory, the first of AGENTS.override.md, AGENTS.md, CLAUDE.md',
    })
  })
})

describe('a file whose imports are not followed', () => {
  it('is sent as written and lists no imports', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n@notes.md\n',
      'notes.md': 'n\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), imports: false })
    expect(found.text).toBe('<!-- AGENTS.md -->\nroot\n@notes.md\n')
    expect(found.files).toHaveLength(1)
    expect(found.files[0]).not.toHaveProperty('imports')
  })
})
