import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import type { DiscoverInstructionsOptions } from './discovery-options.js'
import type { InstructionDiscovery } from './discovery-results.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

afterAll(removeFixtures)

/** Each inlined import the discovery reports: its path and the part of `text` its span covers. */
function importTexts(found: InstructionDiscovery): [string, string][] {
  return found.spans.flatMap((span) =>
    (span.imports ?? []).map((imp) => [imp.path, found.text.slice(imp.start, imp.end)] as [string, string]),
  )
}

describe('where discovery says each inlined import sits in its text', () => {
  // Inlined, AGENTS.md is `top line\nnotes one\nnotes two\nafter\n` (35 bytes).
  async function repo() {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'top line\n@notes.md\nafter\n',
      'notes.md': 'notes one\nnotes two\n',
    })
    const options: DiscoverInstructionsOptions = { cwd: root, home: await emptyHome() }
    return { root, options }
  }

  it('covers exactly the text of the import when the file is kept whole', async () => {
    const { root, options } = await repo()
    const found = await discoverInstructions(options)
    expect(found.text).toBe('<!-- AGENTS.md -->\ntop line\nnotes one\nnotes two\nafter\n')
    expect(importTexts(found)).toEqual([[join(root, 'notes.md'), 'notes one\nnotes two\n']])
  })

  it('covers only what the nearest-first budget kept of the import, never the notice after it', async () => {
    const { root, options } = await repo()
    // `top line\nnotes one\n` is 19 bytes: the import is cut after its first line.
    const found = await discoverInstructions({ ...options, maxBytes: 19 })
    expect(found.text).toContain('notes one\n[… 16 bytes of AGENTS.md omitted …]')
    expect(importTexts(found)).toEqual([[join(root, 'notes.md'), 'notes one\n']])
  })

  it('reports no span for an import the budget cut entirely', async () => {
    const { options } = await repo()
    // Only `top line\n` fits.
    const found = await discoverInstructions({ ...options, maxBytes: 12 })
    expect(found.text).toContain('top line\n[… 26 bytes of AGENTS.md omitted …]')
    expect(importTexts(found)).toEqual([])
  })

  it('reports no span in a synopsis, which is not the inlined text', async () => {
    const { options } = await repo()
    const found = await discoverInstructions({ ...options, preload: 'synopsis' })
    expect(found.text).toContain('top line\nnotes one\nnotes two\nafter\n[Synopsis:')
    expect(importTexts(found)).toEqual([])
  })
})
