import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// GitHub Copilot's instructions (docs.github.com, "Adding repository custom
// instructions"): the CLI's user file, `.github/copilot-instructions.md`,
// `*.instructions.md` at any depth of `.github/instructions` filed by
// `applyTo`, and AGENTS.md.
async function copilotRepository(): Promise<{ root: string; home: string }> {
  const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
  const root = await fixtureTree({
    '.git': { dir: true },
    '.github/copilot-instructions.md': 'Repository.\n',
    '.github/instructions/ts.instructions.md': '---\napplyTo: "src/**/*.ts"\n---\nTypeScript.\n',
    '.github/instructions/deep/api.instructions.md': '---\napplyTo: "api/**"\n---\nThe API.\n',
    '.github/instructions/plain.instructions.md': '---\ndescription: Release notes\n---\nNo applyTo.\n',
    '.github/instructions/review.instructions.md':
      '---\napplyTo: "**"\nexcludeAgent: coding-agent\n---\nReview.\n',
    '.github/instructions/leak.instructions.md': { link: join(outside, 'secret.md') },
    '.github/instructions/notes.md': 'Not an instructions file.\n',
    '.github/prompts/other.instructions.md': 'Not in .github/instructions.\n',
    'AGENTS.md': 'Agents.\n',
    'other/file.md': 'x\n',
  })
  const home = await fixtureTree({ '.copilot/copilot-instructions.md': 'Mine.\n' })
  return { root, home }
}

describe('copilot mode instructions', () => {
  it('loads the user file, the repository file and AGENTS.md at start', async () => {
    const { root, home } = await copilotRepository()
    const found = await discoverInstructions({ cwd: root, home, mode: 'copilot' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.copilot/copilot-instructions.md'),
      join(root, '.github/copilot-instructions.md'),
      join(root, 'AGENTS.md'),
    ])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(root, '.github/instructions/leak.instructions.md')],
    ])
    const why = await explainInstructions({
      cwd: root,
      home,
      mode: 'copilot',
      file: join(home, '.copilot/copilot-instructions.md'),
    })
    expect(why).toMatchObject({
      status: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })

  it('files .instructions.md at every depth of .github/instructions by applyTo, and nothing else', async () => {
    const { root, home } = await copilotRepository()
    const found = await discoverInstructions({ cwd: root, home, mode: 'copilot' })
    expect(found.onDemand.map((f) => [f.path, f.activation, f.trigger])).toEqual([
      [
        join(root, '.github/instructions/deep/api.instructions.md'),
        'glob',
        { kind: 'matches', globs: ['api/**'], base: root, syntax: 'vscode', written: 'api/**' },
      ],
      [
        join(root, '.github/instructions/ts.instructions.md'),
        'glob',
        { kind: 'matches', globs: ['src/**/*.ts'], base: root, syntax: 'vscode', written: 'src/**/*.ts' },
      ],
    ])
    expect(found.onRequest.map((r) => [r.path, r.activation, r.description])).toEqual([
      [join(root, '.github/instructions/plain.instructions.md'), 'manual', 'Release notes'],
    ])
  })

  it('says why an instructions file without applyTo, or excluding the coding agent, is not in the prompt', async () => {
    const { root, home } = await copilotRepository()
    const why = (file: string) => explainInstructions({ cwd: root, home, mode: 'copilot', file })
    expect(await why('.github/instructions/plain.instructions.md')).toMatchObject({
      code: 'manual-rule',
      activation: 'manual',
      reason: 'Copilot loads it only when the user names it (it has no applyTo); it never loads by itself',
    })
    expect(await why('.github/instructions/review.instructions.md')).toMatchObject({
      code: 'excluded-agent',
      activation: 'manual',
    })
  })

  it('names the files it reads, and where, for a file it does not read', async () => {
    const { root, home } = await copilotRepository()
    const why = (file: string) => explainInstructions({ cwd: root, home, mode: 'copilot', file })
    expect(await why('.github/instructions/notes.md')).toMatchObject({
      code: 'not-a-candidate',
      reason:
        'copilot mode reads only copilot-instructions.md, AGENTS.md, CLAUDE.md, GEMINI.md in each directory, and no loaded file imports .github/instructions/notes.md',
    })
    expect(await why('other/AGENTS.md')).toMatchObject({
      code: 'outside-walk',
      reason: `copilot mode reads the repository root ${root} (.github/, CLAUDE.md, GEMINI.md) and the directories from it down to the working directory ${root} (AGENTS.md); ${join(root, 'other')} is not one of them`,
    })
  })

  // "Adding custom instructions for GitHub Copilot CLI" and the CLI's --help: `.github/instructions`
  // in the git root and in cwd; CLAUDE.md and GEMINI.md at the repository root, combined with the rest.
  it('reads CLAUDE.md and GEMINI.md at the root, and .github/instructions in cwd as well as the root', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'Agents.\n',
      'CLAUDE.md': 'Claude.\n',
      'GEMINI.md': 'Gemini.\n',
      'pkg/CLAUDE.md': 'Not at the root.\n',
      'pkg/.github/instructions/py.instructions.md': '---\napplyTo: "**/*.py"\n---\nPython.\n',
    })
    const home = await fixtureTree({})
    const cwd = join(root, 'pkg')
    const found = await discoverInstructions({ cwd, home, mode: 'copilot' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(root, 'AGENTS.md'),
      join(root, 'CLAUDE.md'),
      join(root, 'GEMINI.md'),
    ])
    expect(found.onDemand.map((f) => [f.path, f.activation])).toEqual([
      [join(cwd, '.github/instructions/py.instructions.md'), 'glob'],
    ])
  })
})
