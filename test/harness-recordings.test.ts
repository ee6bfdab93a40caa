import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  discoverInstructions,
  INSTRUCTION_MODES,
  type InstructionMode,
} from '../src/node/instructions/index.js'
import { matchesAroundMarks } from '../src/node/instructions/withheld.js'
import { HOME, ROOT, recordedOn, TREES, withRoot } from './fixtures/harness/trees.js'
import { sourceMapProblems } from './source-map-check.test-helper.js'

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
  .map((e) => {
    const [mode, version] = e.name.split('@') as [InstructionMode, string]
    return { dir: e.name, mode, version }
  })

describe('harness views match the recorded harnesses', () => {
  it('has recordings, each of a known mode', () => {
    expect(recorded.length).toBeGreaterThan(0)
    for (const r of recorded) expect(INSTRUCTION_MODES).toContain(r.mode)
  })

  for (const { dir, mode, version } of recorded) {
    for (const tree of TREES.filter((t) => recordedOn(t, dir))) {
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
        // Each recording against the mode at its version (`pi@0.73.1` and `pi@1.6.0` are both kept).
        const found = await discoverInstructions({
          cwd,
          home,
          mode,
          fsRoot: root,
          harnessVersion: version,
          ...(tree.harnessConfig?.[mode] && { harnessConfig: tree.harnessConfig[mode] }),
        })
        const view = found.harness.parts
        expect(view.map((p) => p.placement)).toEqual(placements)
        for (const part of view) {
          const want = await readFile(join(fixtures, dir, `${tree.name}.${part.placement}.txt`), 'utf8')
          const got = part.compared.split(root).join(ROOT).split(home).join(HOME)
          // A withheld file's mark is the one known difference (none of the recorded trees has one).
          if (part.withheld.length === 0) expect(got).toBe(want)
          else expect(matchesAroundMarks(got, marks(part), want), got).toBe(true)
          // Every line the harness sent from a file is attributed to that file and line.
          expect(await sourceMapProblems(part)).toEqual([])
        }
      })
    }
  }
})

const marks = (part: { withheld: readonly { mark: string }[] }) => part.withheld.map((w) => w.mark)

// Where sysprompt withholds what a harness sends (a link to a denied file), the
// view differs from the harness only where its mark stands. What the harness
// sends there is the view with the file allowed (the views above match the
// recordings byte for byte); the comparison takes the one for the other.
describe('a withheld file is a known difference, not a mismatch', () => {
  const names: Partial<Record<InstructionMode, string>> = {
    claude: 'CLAUDE.md',
    codex: 'AGENTS.md',
    gemini: 'GEMINI.md',
    opencode: 'AGENTS.md',
    pi: 'AGENTS.md',
  }
  for (const mode of [...new Set(recorded.map((r) => r.mode))]) {
    it(`${mode}: a link to .env in the working directory`, async () => {
      const name = names[mode]!
      const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-withheld-')))
      made.push(base)
      const root = join(base, 'tree')
      const home = join(base, 'home')
      await build(root, { '.git/': '', [name]: 'Root rules.\n', '.env': 'API_KEY=sk-withheld\n' })
      await build(home, {})
      await mkdir(join(root, 'pkg'))
      await symlink('../.env', join(root, 'pkg', name))
      const cwd = join(root, 'pkg')
      const options = { cwd, home, mode, fsRoot: root }
      const held = (await discoverInstructions(options)).harness.parts
      const sent = (await discoverInstructions({ ...options, allowFiles: ['.env'] })).harness.parts
      expect(held.map((p) => p.placement)).toEqual(sent.map((p) => p.placement))
      expect(held.flatMap(marks)).toHaveLength(1)
      expect(held.some((p) => p.compared.includes('sk-withheld'))).toBe(false)
      held.forEach((part, i) => {
        const truth = sent[i]!.compared
        expect(truth).toContain('sk-withheld')
        expect(matchesAroundMarks(part.compared, marks(part), truth), part.compared).toBe(true)
        // Only the mark is excused: a change elsewhere is still a mismatch.
        expect(
          matchesAroundMarks(part.compared, marks(part), truth.replace('Root rules.', 'Root rulez.')),
        ).toBe(!truth.includes('Root rules.'))
      })
    })
  }
})
