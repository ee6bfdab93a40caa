import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Gemini CLI core 0.61.0 (see gemini.ts): its walk around the home directory,
// and what gemini mode says about the files it passes over.
describe('gemini mode: the home directory', () => {
  async function dotfiles() {
    // A home that is itself a git repository, as dotfile repositories are.
    return fixtureTree({
      '.git': { dir: true },
      '.gemini/GEMINI.md': 'global\n',
      'GEMINI.md': 'home as a project\n',
      'sub/GEMINI.md': 'below home\n',
    })
  }

  it('has no project walk and nothing on demand when cwd is the home directory', async () => {
    const home = await dotfiles()
    const found = await discoverInstructions({ cwd: home, home, mode: 'gemini', fsRoot: home })
    expect(found.files.map((f) => f.path)).toEqual([join(home, '.gemini/GEMINI.md')])
    expect(found.onDemand).toEqual([])
  })

  it('never reads ~/.gemini as a project directory', async () => {
    const home = await dotfiles()
    const found = await discoverInstructions({
      cwd: join(home, '.gemini'),
      home,
      mode: 'gemini',
      fsRoot: home,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(home, '.gemini/GEMINI.md'), join(home, 'GEMINI.md')])
    expect(found.diagnostics).toEqual([])
  })
})

describe('gemini mode: the reasons it gives', () => {
  it('names GEMINI.md alone when a file is not a candidate', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': 'root\n', 'AGENTS.md': 'other\n' })
    const why = await explainInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      file: 'AGENTS.md',
    })
    expect(why).toMatchObject({
      code: 'not-a-candidate',
      reason: 'gemini mode reads only GEMINI.md in each directory, and no loaded file imports AGENTS.md',
    })
  })

  it('describes its walk from cwd up to the git root, or cwd alone without a git root', async () => {
    const base = await fixtureTree({
      'repo/.git': { dir: true },
      'repo/pkg/GEMINI.md': 'pkg\n',
      'repo/pkg/below/GEMINI.md': 'below cwd\n',
      'plain/task/GEMINI.md': 'work\n',
      'plain/GEMINI.md': 'above cwd\n',
    })
    const home = await emptyHome()
    const repo = join(base, 'repo')
    const cwd = join(repo, 'pkg')
    const inRepo = await explainInstructions({
      cwd,
      home,
      mode: 'gemini',
      fsRoot: base,
      file: join(base, 'GEMINI.md'),
    })
    expect(inRepo).toMatchObject({
      code: 'outside-walk',
      reason: `gemini mode reads the directories from the working directory ${cwd} up to the git root ${repo}; ${base} is not one of them`,
    })
    const work = join(base, 'plain/task')
    const alone = await explainInstructions({
      cwd: work,
      home,
      mode: 'gemini',
      fsRoot: base,
      file: '../GEMINI.md',
    })
    expect(alone).toMatchObject({
      code: 'outside-walk',
      reason: `gemini mode reads only the working directory ${work} (there is no git root); ${join(base, 'plain')} is not one of them`,
    })
  })

  it('says a name absent from a walked directory is not there', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'pkg/GEMINI.md': 'pkg\n' })
    const why = await explainInstructions({
      cwd: join(repo, 'pkg'),
      home: await emptyHome(),
      mode: 'gemini',
      file: join(repo, 'GEMINI.md'),
    })
    expect(why).toMatchObject({ status: 'skipped', code: 'missing', reason: 'there is no file GEMINI.md' })
  })

  it('leaves a blank global file out, and says why', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': 'root\n' })
    const home = await fixtureTree({ '.gemini/GEMINI.md': ' \n\n' })
    const options = { cwd: repo, home, mode: 'gemini' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'GEMINI.md')])
    expect(await explainInstructions({ ...options, file: join(home, '.gemini/GEMINI.md') })).toMatchObject({
      status: 'skipped',
      code: 'empty',
      reason: 'it is blank, and Gemini CLI leaves blank files out',
    })
  })

  it('passes over a directory where the global file would be, without a warning', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': 'root\n' })
    const home = await fixtureTree({ '.gemini/GEMINI.md': { dir: true } })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'gemini' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'GEMINI.md')])
    expect(found.diagnostics).toEqual([])
  })

  it('skips a project file that links out of the repository and loads the others', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': { link: join(outside, 'secret.md') },
      'pkg/GEMINI.md': 'pkg\n',
    })
    const options = { cwd: join(repo, 'pkg'), home: await emptyHome(), mode: 'gemini' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'pkg/GEMINI.md')])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(repo, 'GEMINI.md')],
    ])
    expect(await explainInstructions({ ...options, file: join(repo, 'GEMINI.md') })).toMatchObject({
      code: 'outside-root',
    })
  })
})
