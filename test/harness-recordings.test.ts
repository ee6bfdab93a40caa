import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  discoverInstructions,
  INSTRUCTION_MODES,
  type InstructionMode,
} from '../src/node/instructions/index.js'
import { HOME, ROOT, TREES, withRoot } from './fixtures/harness/trees.js'

// Each mode's harness view against what the published harness really sent on
// the same tree, byte for byte. The recordings come from
// scripts/record-harness/record.ts (run by hand, not in CI); this test only reads them.
const fixtures = join(import.meta.dirname, 'fixtures', 'harness')
const made: string[] = []
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))))

async function build(base: string, entries: Record<string, string>): Promise<void> {
  await mkdir(base, { recursive: true })
  for (const [rel, text] of Object.entries(entries)) {
    const path = join(base, ...rel.split('/'))
    if (rel.endsWith('/')) await mkdir(path, { recursive: true })
    else {
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, text)
    }
  }
}

const recorded = (await readdir(fixtures, { withFileTypes: true }))
  .filter((e) => e.isDirectory() && /^[a-z]+@[\w.-]+$/.test(e.name))
  .map((e) => ({ dir: e.name, mode: e.name.split('@')[0] as InstructionMode }))

describe('harness views match the recorded harnesses', () => {
  it('has recordings, each of a known mode', () => {
    expect(recorded.length).toBeGreaterThan(0)
    for (const r of recorded) expect(INSTRUCTION_MODES).toContain(r.mode)
  })

  for (const { dir, mode } of recorded) {
    for (const tree of TREES) {
      it(`${dir}: ${tree.name}`, async () => {
        const partsFile = join(fixtures, dir, `${tree.name}.parts.json`)
        const placements: string[] = JSON.parse(await readFile(partsFile, 'utf8'))
        const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-recorded-')))
        made.push(base)
        const root = join(base, 'tree')
        const home = join(base, 'home')
        if (tree.from !== undefined)
          await cp(join(fixtures, tree.from), root, { recursive: true, verbatimSymlinks: true })
        await build(root, tree.files)
        await build(home, withRoot(tree.home, root))
        const cwd = join(root, ...tree.cwd.split('/').filter(Boolean))
        const found = await discoverInstructions({ cwd, home, mode, fsRoot: root })
        const view = found.harness.parts
        expect(view.map((p) => p.placement)).toEqual(placements)
        for (const part of view) {
          const want = await readFile(join(fixtures, dir, `${tree.name}.${part.placement}.txt`), 'utf8')
          const got = part.compared.split(root).join(ROOT).split(home).join(HOME)
          expect(got).toBe(want)
        }
      })
    }
  }
})
