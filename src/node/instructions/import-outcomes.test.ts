import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import type { DiscoverInstructionsOptions } from './discovery-options.js'
import type { InstructionFile } from './discovery-results.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

afterAll(removeFixtures)

/** [path, truncated] of every import of a file, depth first. */
function importFlags(file: InstructionFile | undefined): [string, boolean][] {
  return (file?.imports ?? []).flatMap((i) => [[i.path, i.truncated] as [string, boolean], ...importFlags(i)])
}

describe('imports of a file the byte budget cut', () => {
  // Inlined, the root file is `root\nnotes one\nnotes two\nmore\n` (30 bytes); pkg/AGENTS.md is 4 bytes.
  async function repo() {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n@notes.md\n@more.md\n',
      'notes.md': 'notes one\nnotes two\n',
      'more.md': 'more\n',
      'pkg/AGENTS.md': 'pkg\n',
    })
    const options = { cwd: join(root, 'pkg'), home: await emptyHome() }
    return { root, options }
  }

  it('marks an import cut in part, or cut entirely, as truncated', async () => {
    const { root, options } = await repo()
    // pkg (4) whole, then 15 bytes of the root file: `root\nnotes one\n`.
    const found = await discoverInstructions({ ...options, maxBytes: 19 })
    expect(found.files[0]!.truncated).toBe(true)
    expect(importFlags(found.files[0])).toEqual([
      [join(root, 'notes.md'), true],
      [join(root, 'more.md'), true],
    ])
    const explain = (file: string) =>
      explainInstructions({ ...options, maxBytes: 19, file: join(root, file) })
    expect(await explain('notes.md')).toMatchObject({ status: 'truncated', code: 'truncated' })
    expect((await explain('notes.md')).reason).toBe(
      "inlined into AGENTS.md, whose text the 19-byte cap cut (nearest-first: files nearer the working directory come first) where this file's text lies, so not all of it reached the prompt",
    )
    expect(await explain('more.md')).toMatchObject({ status: 'skipped', code: 'over-budget' })
    expect((await explain('more.md')).reason).toBe(
      "inlined into AGENTS.md, whose text the 19-byte cap cut (nearest-first: files nearer the working directory come first) before this file's text, so none of it reached the prompt",
    )
  })

  it('keeps an import that fit before the cut whole, and says it was included', async () => {
    const { root, options } = await repo()
    // pkg (4) whole, then 25 bytes of the root file: everything but `more\n`.
    const found = await discoverInstructions({ ...options, maxBytes: 29 })
    expect(importFlags(found.files[0])).toEqual([
      [join(root, 'notes.md'), false],
      [join(root, 'more.md'), true],
    ])
    expect(
      await explainInstructions({ ...options, maxBytes: 29, file: join(root, 'notes.md') }),
    ).toMatchObject({ status: 'included', code: 'imported' })
  })

  it('marks nested imports of an importer cut to nothing', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'top\n@a.md\n',
      'a.md': 'a\n@b.md\n',
      'b.md': 'b\n',
    })
    const options = { cwd: root, home: await emptyHome(), maxBytes: 2 }
    const found = await discoverInstructions(options)
    expect(found.text).toContain('[… 8 bytes of AGENTS.md omitted …]')
    expect(importFlags(found.files[0])).toEqual([
      [join(root, 'a.md'), true],
      [join(root, 'b.md'), true],
    ])
    for (const file of ['a.md', 'b.md'])
      expect(await explainInstructions({ ...options, file })).toMatchObject({ code: 'over-budget' })
  })

  it('never calls an import whole unless all of its text is in the prompt', async () => {
    const { options } = await repo()
    // Every budget from nothing to everything: an import marked whole has its text in the prompt.
    for (let maxBytes = 0; maxBytes <= 36; maxBytes++) {
      const found = await discoverInstructions({ ...options, maxBytes })
      for (const [path, truncated] of importFlags(found.files[0])) {
        const text = path.endsWith('notes.md') ? 'notes one\nnotes two\n' : 'more\n'
        if (!truncated) expect(found.text, `maxBytes ${maxBytes}`).toContain(text)
      }
      // more.md ends the root file's text: any cut of the root file reaches it.
      expect(
        importFlags(found.files[0]).some(([, t]) => t),
        `maxBytes ${maxBytes}`,
      ).toBe(found.files[0]!.truncated)
    }
  })

  it('treats every import of a cut synopsis as truncated', async () => {
    const { root, options } = await repo()
    const found = await discoverInstructions({ ...options, preload: 'synopsis', maxBytes: 30 })
    expect(found.files[0]!.truncated).toBe(true)
    expect(importFlags(found.files[0]).map(([, t]) => t)).toEqual([true, true])
    expect(
      await explainInstructions({
        ...options,
        preload: 'synopsis',
        maxBytes: 30,
        file: join(root, 'notes.md'),
      }),
    ).toMatchObject({ status: 'truncated' })
  })

  it('follows the markers and the trim of gemini mode', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      // Leading blank lines are trimmed away before the budget counts.
      'GEMINI.md': '\n\nintro\n@./a.md\n',
      'a.md': 'a line one\na line two\n',
    })
    const base: DiscoverInstructionsOptions = { cwd: root, home: await emptyHome(), mode: 'gemini' }
    const flags = async (maxBytes: number) =>
      importFlags((await discoverInstructions({ ...base, maxBytes })).files[0])[0]![1]
    // `intro\n<!-- Imported from: ./a.md -->\n` is 37 bytes; a.md's text follows it.
    expect(await flags(37)).toBe(true)
    expect(await explainInstructions({ ...base, maxBytes: 37, file: join(root, 'a.md') })).toMatchObject({
      code: 'over-budget',
    })
    expect(await flags(48)).toBe(true)
    expect(await explainInstructions({ ...base, maxBytes: 48, file: join(root, 'a.md') })).toMatchObject({
      code: 'truncated',
    })
    expect(await flags(60)).toBe(false)
  })
})

describe('a file inlined by two importers the budget treats differently', () => {
  // Both instruction files import shared.md; inlined, pkg/AGENTS.md is `pkg\nshared\n` (11 bytes).
  async function repo() {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n@shared.md\n',
      'pkg/AGENTS.md': 'pkg\n@../shared.md\n',
      'shared.md': 'shared\n',
    })
    return { root, options: { cwd: join(root, 'pkg'), home: await emptyHome() } }
  }

  it('counts it included when one importer kept it whole, though the other lost it', async () => {
    const { root, options } = await repo()
    // pkg (nearest) whole; the root file, first in load order, cut to nothing.
    const found = await discoverInstructions({ ...options, maxBytes: 11 })
    expect(found.text).toContain('shared\n')
    expect(importFlags(found.files.find((f) => f.path === join(root, 'pkg/AGENTS.md')))).toEqual([
      [join(root, 'shared.md'), false],
    ])
    expect(
      await explainInstructions({ ...options, maxBytes: 11, file: join(root, 'shared.md') }),
    ).toMatchObject({
      status: 'included',
      code: 'imported',
    })
    expect(found.diagnostics.find((d) => d.code === 'over-budget')?.message ?? '').not.toContain('shared.md')
  })

  it('names the first importer in load order when every importer lost it', async () => {
    const { root, options } = await repo()
    expect(await explainInstructions({ ...options, maxBytes: 2, file: join(root, 'shared.md') })).toEqual({
      file: join(root, 'shared.md'),
      status: 'skipped',
      code: 'over-budget',
      reason:
        "inlined into AGENTS.md, whose text the 2-byte cap cut (nearest-first: files nearer the working directory come first) before this file's text, so none of it reached the prompt",
    })
  })
})

describe('the over-budget message', () => {
  it('speaks of the nearest-first budget in sysprompt mode, never of Codex', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n@notes.md\n',
      'notes.md': 'notes\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), maxBytes: 5 })
    const message = found.diagnostics.find((d) => d.code === 'over-budget')?.message
    expect(message).toContain('notes.md never reaches the model')
    expect(message).toContain('5-byte nearest-first budget (maxBytes)')
    expect(message).not.toMatch(/Codex|project_doc_max_bytes/)
  })

  it('speaks of project_doc_max_bytes in codex mode', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root rules\n',
      'pkg/AGENTS.md': 'pkg rules\n',
    })
    const found = await discoverInstructions({
      cwd: join(root, 'pkg'),
      home: await emptyHome(),
      mode: 'codex',
      maxBytes: 11,
    })
    const message = found.diagnostics.find((d) => d.code === 'over-budget')?.message
    expect(message).toContain(
      "pkg/AGENTS.md never reaches the model: Codex's 11-byte project_doc_max_bytes was spent before it.",
    )
  })
})
