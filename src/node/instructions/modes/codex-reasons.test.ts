import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// What codex mode says about the files it passes over, and the global and
// project files it cannot read (Codex CLI 0.171.0, see codex.ts).
describe('codex mode: the reasons it gives', () => {
  it('names its two file names when a file is not one of them', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'root\n', 'CLAUDE.md': 'other\n' })
    const why = await explainInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'codex',
      file: 'CLAUDE.md',
    })
    expect(why).toMatchObject({
      code: 'not-a-candidate',
      reason:
        'codex mode reads only AGENTS.override.md, AGENTS.md in each directory, and no loaded file imports CLAUDE.md',
    })
  })

  it('describes its walk from the git root down to cwd, or cwd alone without a git root', async () => {
    const base = await fixtureTree({
      'repo/.git': { dir: true },
      'repo/pkg/AGENTS.md': 'pkg\n',
      'repo/pkg/below/AGENTS.md': 'below cwd\n',
      'plain/task/AGENTS.md': 'work\n',
      'plain/task/below/AGENTS.md': 'below cwd\n',
    })
    const home = await emptyHome()
    const repo = join(base, 'repo')
    const inRepo = await explainInstructions({
      cwd: join(repo, 'pkg'),
      home,
      mode: 'codex',
      fsRoot: base,
      file: 'below/AGENTS.md',
    })
    expect(inRepo).toMatchObject({
      code: 'outside-walk',
      reason: `codex mode reads the directories from the git root ${repo} down to the working directory ${join(repo, 'pkg')}; ${join(repo, 'pkg/below')} is not one of them`,
    })
    const work = join(base, 'plain/task')
    const alone = await explainInstructions({
      cwd: work,
      home,
      mode: 'codex',
      fsRoot: base,
      file: 'below/AGENTS.md',
    })
    expect(alone).toMatchObject({
      code: 'outside-walk',
      reason: `codex mode reads only the working directory ${work} (there is no git root); ${join(work, 'below')} is not one of them`,
    })
  })

  it('skips a project file that links out of the repository and loads the others', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': { link: join(outside, 'secret.md') },
      'pkg/AGENTS.md': 'pkg\n',
    })
    const options = { cwd: join(repo, 'pkg'), home: await emptyHome(), mode: 'codex' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'pkg/AGENTS.md')])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(repo, 'AGENTS.md')],
    ])
    expect(await explainInstructions({ ...options, file: join(repo, 'AGENTS.md') })).toMatchObject({
      code: 'outside-root',
    })
  })

  it('says a file was decided by project_doc_fallback_filenames only for a fallback name the config brought in', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'root\n', 'pkg/TEAM.md': 'team\n' })
    const home = await fixtureTree({ '.codex/config.toml': 'project_doc_fallback_filenames = ["TEAM.md"]\n' })
    const cwd = join(repo, 'pkg')
    const why = async (file: string, names?: string[]) =>
      (await explainInstructions({ cwd, home, mode: 'codex', file, ...(names && { names }) })).reason
    expect(await why(join(cwd, 'TEAM.md'))).toBe(
      'loaded from pkg, file 2 in load order (decided by project_doc_fallback_filenames in ~/.codex/config.toml)',
    )
    // AGENTS.md is one of Codex's own names: the setting did not bring it in.
    expect(await why(join(repo, 'AGENTS.md'))).toBe('loaded from ., file 1 in load order')
    // Names passed by the caller win over the config file, which then decided nothing.
    expect(await why(join(cwd, 'TEAM.md'), ['TEAM.md'])).toBe('loaded from pkg, file 2 in load order')
  })

  it('passes over a directory where a global file would be, without a warning', async () => {
    const repo = await fixtureTree({ '.git': { dir: true } })
    const home = await fixtureTree({
      '.codex/AGENTS.override.md': { dir: true },
      '.codex/AGENTS.md': 'global\n',
    })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex' })
    expect(found.files.map((f) => f.path)).toEqual([join(home, '.codex/AGENTS.md')])
    expect(found.diagnostics).toEqual([])
  })

  it('skips a global file that links out of the Codex home, and takes the next one', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({ '.git': { dir: true } })
    const home = await fixtureTree({
      '.codex/AGENTS.override.md': { link: join(outside, 'secret.md') },
      '.codex/AGENTS.md': 'global\n',
    })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex' })
    expect(found.files.map((f) => f.path)).toEqual([join(home, '.codex/AGENTS.md')])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => d.code)).toEqual(['outside-root'])
  })
})
