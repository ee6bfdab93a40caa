import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { findImportLines } from './imports.js'
import { importFailure } from './read.js'

// Edges of import lines: a fence closed only by a marker as long as its
// opening, an import on a file's last line (no line break after it), and the
// words for an import outside several roots.

afterAll(removeFixtures)

describe('import lines at the edges', () => {
  it('keeps a fence open through a shorter marker of the same kind', () => {
    const text = '````\n```\n@inside.md\n```\n````\n@after.md\n'
    expect(findImportLines(text).map((line) => line.target)).toEqual(['after.md'])
  })

  it('inlines an import on the last line of a file without adding a line break after it', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': '@a.md\nafter\n',
      'a.md': 'A\n@b.md',
      'b.md': 'B',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome() })
    expect(found.text).toBe('<!-- AGENTS.md -->\nA\nB\nafter\n')
    const spans = found.spans.flatMap((span) =>
      (span.imports ?? []).map((imp) => [imp.path, found.text.slice(imp.start, imp.end)]),
    )
    expect(spans).toEqual([
      [join(root, 'a.md'), 'A\nB'],
      [join(root, 'b.md'), 'B'],
    ])
  })

  it('names every root an import lies outside of', () => {
    expect(
      importFailure({ failure: 'outside-root', why: 'lies outside the project' }, ['/repo', '/home/me']),
    ).toEqual({
      code: 'import-outside-root',
      what: 'lies outside /repo, /home/me',
    })
  })
})
