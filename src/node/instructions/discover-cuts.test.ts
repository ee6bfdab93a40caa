import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import type { DiscoverInstructionsOptions } from './discovery-options.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { WINDSURF_RULE_CHARS } from './modes/windsurf.js'

afterAll(removeFixtures)

describe('a file the byte budget cut', () => {
  it('keeps the activation of a convention rule', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.cursor/rules/style.mdc': '---\nalwaysApply: true\n---\nrule one\nrule two\n',
    })
    const found = await discoverInstructions({
      cwd: root,
      home: await emptyHome(),
      mode: 'cursor',
      maxBytes: 9,
    })
    expect(found.text).toContain('rule one\n[… 9 bytes of .cursor/rules/style.mdc omitted …]')
    expect(found.files).toEqual([expect.objectContaining({ truncated: true, activation: 'always' })])
  })

  it('gives no place in the file for a cut of its synopsis', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'Intro para.\n\nMore prose.\n\n# Head\nbody\n',
    })
    const options: DiscoverInstructionsOptions = { cwd: root, home: await emptyHome(), maxBytes: 19 }
    const truncated = async (preload: 'full' | 'synopsis') =>
      (await discoverInstructions({ ...options, preload })).diagnostics.filter((d) => d.code === 'truncated')
    // The file's own text keeps its whole lines within 19 bytes, `Intro para.\n\n`: the model stops at line 3.
    expect((await truncated('full')).map((d) => d.site)).toEqual([
      { path: join(root, 'AGENTS.md'), line: 3, column: 1 },
    ])
    // Its synopsis keeps `Intro para.\n# Head\n`, which is no prefix of the file.
    const [synopsisCut] = await truncated('synopsis')
    expect(synopsisCut).toMatchObject({ path: join(root, 'AGENTS.md') })
    expect(synopsisCut).not.toHaveProperty('site')
  })
})

describe('a synopsis the budget left whole', () => {
  it('counts the imports inlined into its file as included', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n@notes.md\n',
      'notes.md': 'notes\n',
    })
    const options: DiscoverInstructionsOptions = { cwd: root, home: await emptyHome(), preload: 'synopsis' }
    const found = await discoverInstructions(options)
    expect(found.files[0]!.imports).toEqual([
      expect.objectContaining({ path: join(root, 'notes.md'), truncated: false }),
    ])
    expect(await explainInstructions({ ...options, file: join(root, 'notes.md') })).toMatchObject({
      status: 'included',
      code: 'imported',
    })
  })
})

describe('an import that is also an instruction file of its own', () => {
  it('is not reported lost when the budget cut it out of its importer', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n@pkg/AGENTS.md\n',
      'pkg/AGENTS.md': 'pkg\n',
    })
    const options = { cwd: join(root, 'pkg'), home: await emptyHome(), maxBytes: 4 }
    const found = await discoverInstructions(options)
    // pkg/AGENTS.md (nearest) is kept whole; the root file, which inlines it, is cut to nothing.
    expect(found.text).toContain('<!-- pkg/AGENTS.md -->\npkg\n')
    expect(found.diagnostics.map((d) => d.code)).toEqual(['truncated'])
    expect(await explainInstructions({ ...options, file: join(root, 'pkg/AGENTS.md') })).toMatchObject({
      status: 'included',
      code: 'included',
    })
  })
})

describe("Windsurf's cut of a long rule file", () => {
  const long = 'line\n'.repeat(WINDSURF_RULE_CHARS / 5 + 100)
  async function repo() {
    const root = await fixtureTree({ '.git': { dir: true }, '.windsurf/rules/long.md': long })
    return { root, options: { cwd: root, home: await emptyHome(), mode: 'windsurf' as const } }
  }

  it('gives way to the byte budget when that cuts the file further', async () => {
    const { root, options } = await repo()
    const explained = await explainInstructions({
      ...options,
      maxBytes: 100,
      file: join(root, '.windsurf/rules/long.md'),
    })
    expect(explained).toMatchObject({ status: 'truncated', code: 'truncated' })
    expect(explained.reason).toBe(
      'the first 100 of its bytes were kept and 11 900 cut by the 100-byte cap (nearest-first: files nearer the working directory come first)',
    )
  })

  it('is still explained when nothing is preloaded', async () => {
    const { root, options } = await repo()
    const explained = await explainInstructions({
      ...options,
      preload: 'none',
      file: join(root, '.windsurf/rules/long.md'),
    })
    expect(explained).toMatchObject({
      status: 'truncated',
      code: 'truncated',
      reason: '500 of its characters were cut (Windsurf reads 12 000 characters of a rule file)',
    })
  })
})
