import { cp, mkdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { CONVENTION_MODES, type ConventionMode } from '../discovery-options.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

const FIXTURE = new URL('../../../../test/fixtures/conventions/', import.meta.url)

interface Expected {
  start: string[]
  onDemand: [string, string | null][]
  onRequest: [string, string][]
  forPath: string[]
  /** File, reason code and the explanation a user reads. */
  skipped: [string, string, string][]
}

/** The shared multi-convention tree, copied into a fresh repository (a `.git` directory cannot be committed). */
async function repository(): Promise<string> {
  const base = await fixtureTree({ '.git': { dir: true } })
  await cp(new URL('repo/', FIXTURE), base, { recursive: true })
  await mkdir(join(base, '.git'), { recursive: true })
  return base
}

const expected = JSON.parse(await readFile(new URL('expected.json', FIXTURE), 'utf8')) as Record<
  ConventionMode,
  Expected
>

describe('convention modes on the shared fixture tree', () => {
  it.each(CONVENTION_MODES)('%s loads what its documentation says', async (mode) => {
    const root = await repository()
    const home = await emptyHome()
    const want = expected[mode]
    const rel = (path: string) => relative(root, path).split('\\').join('/')
    const found = await discoverInstructions({ cwd: root, home, mode, paths: ['src/app.ts'] })
    expect(found.files.map((f) => rel(f.path))).toEqual(want.start)
    expect(found.onDemand.map((f) => [rel(f.path), f.activation ?? null])).toEqual(want.onDemand)
    expect(found.onRequest.map((f) => [rel(f.path), f.activation])).toEqual(want.onRequest)
    expect(found.lateBound.map((f) => rel(f.path))).toEqual(want.forPath)
    for (const [file, code, reason] of want.skipped) {
      const why = await explainInstructions({ cwd: root, home, mode, file: join(root, file) })
      expect(why, file).toMatchObject({ status: 'skipped', code, reason })
    }
    // Every rule loaded at start says so; front matter never reaches the model.
    for (const file of found.files) expect(file.activation).toBe('always')
    expect(found.text).not.toMatch(/^(alwaysApply|applyTo|trigger|inclusion|globs|paths):/m)
  })

  it('explain shows each activation, and a glob rule late-bound for a matching --path', async () => {
    const root = await repository()
    const home = await emptyHome()
    const base = { cwd: root, home, mode: 'cursor' as const }
    expect(await explainInstructions({ ...base, file: '.cursor/rules/ask.mdc' })).toMatchObject({
      status: 'skipped',
      code: 'on-request',
      activation: 'requested',
    })
    expect(await explainInstructions({ ...base, file: '.cursor/rules/manual.mdc' })).toMatchObject({
      code: 'manual-rule',
      activation: 'manual',
    })
    expect(await explainInstructions({ ...base, file: '.cursor/rules/ts.mdc' })).toMatchObject({
      status: 'on-demand',
      activation: 'glob',
    })
    expect(
      await explainInstructions({ ...base, paths: ['src/app.ts'], file: '.cursor/rules/ts.mdc' }),
    ).toMatchObject({ status: 'late-bound', activation: 'glob' })
    expect(await explainInstructions({ ...base, file: '.cursor/rules/always.mdc' })).toMatchObject({
      status: 'included',
      activation: 'always',
    })
  })

  it('Copilot discards applyTo given as a YAML list and says so', async () => {
    const root = await repository()
    const why = await explainInstructions({
      cwd: root,
      home: await emptyHome(),
      mode: 'copilot',
      file: '.github/instructions/list.instructions.md',
    })
    expect(why.code).toBe('manual-rule')
    expect(why.reason).toContain('YAML list')
  })

  it('Windsurf reads 12 000 characters of a rule and marks the cut', async () => {
    const long = `${'a rule line of forty characters, or so.\n'.repeat(400)}`
    const root = await fixtureTree({ '.git': { dir: true }, '.windsurf/rules/big.md': long })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'windsurf' })
    expect(found.files).toHaveLength(1)
    expect(found.files[0]!.truncated).toBe(true)
    expect(found.text).toContain(long.slice(0, 12_000))
    expect(found.text).not.toContain(long.slice(0, 12_001))
    expect(found.diagnostics.map((d) => d.code)).toEqual(['truncated'])
    const why = await explainInstructions({
      cwd: root,
      home: await emptyHome(),
      mode: 'windsurf',
      file: '.windsurf/rules/big.md',
    })
    expect(why).toMatchObject({ status: 'truncated', code: 'truncated' })
  })

  it('reads the shared ~/.agents/AGENTS.md in Cline mode, before the workspace rules', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, '.clinerules': 'one file\n' })
    const home = await fixtureTree({
      '.agents/AGENTS.md': 'shared\n',
      'Documents/Cline/Rules/a.md': 'mine\n',
    })
    const found = await discoverInstructions({ cwd: root, home, mode: 'cline' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, 'Documents/Cline/Rules/a.md'),
      join(home, '.agents/AGENTS.md'),
      join(root, '.clinerules'),
    ])
  })

  it('never reads a rule that links out of the project', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const root = await fixtureTree({
      '.git': { dir: true },
      '.cursor/rules/leak.mdc': { link: join(outside, 'secret.md') },
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cursor' })
    expect(found.text).not.toContain('SECRET')
    expect(found.onRequest).toEqual([])
    expect(found.diagnostics.map((d) => d.code)).toEqual(['outside-root'])
  })
})
