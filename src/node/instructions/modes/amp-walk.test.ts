import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { ampGlobs } from './amp.js'

afterAll(removeFixtures)

// Amp (ampcode.com/manual#AGENTS.md): the global file, the first of
// AGENTS.md, AGENT.md, CLAUDE.md in each directory from the project root
// down to cwd, the same names below cwd on demand, and the files they
// mention.
describe('ampGlobs', () => {
  it('reads a glob relative to the project root with an implicit **/, unless it is anchored', () => {
    expect(ampGlobs(['./a/*.ts', '/b/*.md', '**/c.ts', '../d.ts', 'e.ts', 'f/'])).toEqual([
      'a/*.ts',
      'b/*.md',
      '**/c.ts',
      '../d.ts',
      '**/e.ts',
      '**/f/',
    ])
  })
})

async function ampRepository(): Promise<{ root: string; home: string; cwd: string }> {
  const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
  const root = await fixtureTree({
    '.git': { dir: true },
    'AGENTS.md': 'Top.\n@doc/style.md\n@doc/ts.md\n',
    'doc/style.md': 'Style.\n',
    'doc/ts.md': '---\nglobs: "*.ts"\n---\nTypeScript.\n',
    'work/notes.txt': 'No instruction file in this directory.\n',
    'work/inner/AGENTS.md': { link: join(outside, 'secret.md') },
    'work/inner/below/AGENTS.md': 'Below, AGENTS.md.\n',
    'work/inner/below/CLAUDE.md': 'Below, CLAUDE.md.\n',
    'other/file.md': 'x\n',
  })
  const home = await fixtureTree({ '.config/amp/AGENTS.md': 'Global.\n' })
  return { root, home, cwd: join(root, 'work/inner') }
}

describe('amp mode walk', () => {
  it('walks from the root down to cwd past a directory without a file and a file linking out', async () => {
    const { root, home, cwd } = await ampRepository()
    const found = await discoverInstructions({ cwd, home, mode: 'amp' })
    expect(found.files.map((f) => [f.path, f.activation])).toEqual([
      [join(home, '.config/amp/AGENTS.md'), 'always'],
      [join(root, 'AGENTS.md'), 'always'],
      [join(root, 'doc/style.md'), 'always'],
    ])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(root, 'work/inner/AGENTS.md')],
    ])
    // Below cwd only the first of Amp's names in a directory loads.
    expect(found.onDemand.map((f) => [f.path, f.activation])).toEqual([
      [join(root, 'doc/ts.md'), 'glob'],
      [join(root, 'work/inner/below/AGENTS.md'), undefined],
    ])
  })

  it('says where each file it loads comes from, and where it reads', async () => {
    const { root, home, cwd } = await ampRepository()
    const why = (file: string) => explainInstructions({ cwd, home, mode: 'amp', file })
    expect(await why(join(home, '.config/amp/AGENTS.md'))).toMatchObject({
      status: 'included',
      activation: 'always',
      reason: 'loaded as global instructions, file 1 in load order',
    })
    expect(await why(join(root, 'doc/style.md'))).toMatchObject({
      status: 'included',
      reason: 'loaded as its own block (mentioned by AGENTS.md), file 3 in load order',
    })
    expect(await why(join(root, 'other/AGENTS.md'))).toMatchObject({
      code: 'outside-walk',
      reason: `amp mode reads the directories from the working directory ${cwd} up to the project root ${root}; ${join(root, 'other')} is not one of them`,
    })
  })

  it('includes no mentioned file when imports are off', async () => {
    const { root, home, cwd } = await ampRepository()
    const found = await discoverInstructions({ cwd, home, mode: 'amp', imports: false })
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.config/amp/AGENTS.md'),
      join(root, 'AGENTS.md'),
    ])
    expect(found.onDemand.map((f) => f.path)).toEqual([join(root, 'work/inner/below/AGENTS.md')])
  })
})
