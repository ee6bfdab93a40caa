import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Windsurf's rules (docs.windsurf.com/windsurf/cascade/memories): the
// global rules file, `.md` rules directly in `.windsurf/rules` filed by
// their trigger, `.windsurfrules` and AGENTS.md; each rule read up to its
// first 12 000 characters.
const LIMIT = 12_000

describe('windsurf mode rules', () => {
  it('loads the global rules, the always-on rules, .windsurfrules and AGENTS.md, and nothing else', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const root = await fixtureTree({
      '.git': { dir: true },
      '.windsurf/rules/always.md': '---\ntrigger: always_on\n---\nAlways.\n',
      '.windsurf/rules/notes.txt': 'Not a rule file.\n',
      '.windsurf/rules/sub/deep.md': 'Not read: Windsurf does not look below .windsurf/rules.\n',
      '.windsurf/rules/leak.md': { link: join(outside, 'secret.md') },
      '.windsurfrules': 'Legacy.\n',
      'AGENTS.md': 'Agents.\n',
    })
    const home = await fixtureTree({ '.codeium/windsurf/memories/global_rules.md': 'Global.\n' })
    const found = await discoverInstructions({ cwd: root, home, mode: 'windsurf' })
    expect(found.files.map((f) => [f.path, f.activation])).toEqual([
      [join(home, '.codeium/windsurf/memories/global_rules.md'), 'always'],
      [join(root, '.windsurf/rules/always.md'), 'always'],
      [join(root, '.windsurfrules'), 'always'],
      [join(root, 'AGENTS.md'), 'always'],
    ])
    expect(found.onDemand).toEqual([])
    expect(found.onRequest).toEqual([])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(root, '.windsurf/rules/leak.md')],
    ])
    const why = await explainInstructions({
      cwd: root,
      home,
      mode: 'windsurf',
      file: join(home, '.codeium/windsurf/memories/global_rules.md'),
    })
    expect(why).toMatchObject({
      status: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })

  it('lists manual and model-decision rules, a trigger it does not know as manual, and says why', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.windsurf/rules/manual.md': '---\ntrigger: manual\n---\nBy hand.\n',
      '.windsurf/rules/model.md':
        '---\ntrigger: model_decision\ndescription: Release steps\n---\nReleases.\n',
      '.windsurf/rules/odd.md': '---\ntrigger: sometimes\n---\nOdd.\n',
    })
    const home = await emptyHome()
    const found = await discoverInstructions({ cwd: root, home, mode: 'windsurf' })
    expect(found.onRequest.map((r) => [r.path, r.activation, r.description])).toEqual([
      [join(root, '.windsurf/rules/manual.md'), 'manual', undefined],
      [join(root, '.windsurf/rules/model.md'), 'requested', 'Release steps'],
      [join(root, '.windsurf/rules/odd.md'), 'manual', undefined],
    ])
    const why = (file: string) => explainInstructions({ cwd: root, home, mode: 'windsurf', file })
    expect(await why('.windsurf/rules/manual.md')).toMatchObject({
      code: 'manual-rule',
      activation: 'manual',
      reason: 'Windsurf loads it only when the user names it (trigger: manual); it never loads by itself',
    })
    expect(await why('.windsurf/rules/model.md')).toMatchObject({
      code: 'on-request',
      activation: 'requested',
      reason:
        'Windsurf loads it only when the model asks for it by its description (trigger: model_decision); it is not in the prompt at start',
    })
    expect(await why('.windsurf/rules/odd.md')).toMatchObject({
      code: 'manual-rule',
      activation: 'manual',
      reason:
        'Windsurf loads it only when the user names it (trigger sometimes is not one Windsurf knows); it never loads by itself',
    })
  })

  it('loads an AGENTS.md of a subdirectory for any file under it', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, 'src/AGENTS.md': 'Src.\n' })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'windsurf' })
    expect(found.onDemand.map((f) => [f.path, f.activation, f.trigger])).toEqual([
      [join(root, 'src/AGENTS.md'), 'glob', { kind: 'matches', globs: ['**'], base: join(root, 'src') }],
    ])
  })

  it('names the files it reads, and where, for a file it does not read', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, 'other/file.md': 'x\n' })
    const home = await emptyHome()
    const why = (file: string) => explainInstructions({ cwd: root, home, mode: 'windsurf', file })
    expect(await why('notes.md')).toMatchObject({
      code: 'not-a-candidate',
      reason:
        'windsurf mode reads only .windsurfrules, AGENTS.md, agents.md, global_rules.md in each directory, and no loaded file imports notes.md',
    })
    // Windsurf reads every directory below the workspace: a missing file there is just missing.
    expect(await why('other/AGENTS.md')).toMatchObject({
      code: 'missing',
      reason: 'there is no file other/AGENTS.md',
    })
    // Beside the workspace, outside the walk.
    const app = join(root, 'app')
    await mkdir(app)
    expect(
      await explainInstructions({ cwd: app, home, mode: 'windsurf', file: '../other/AGENTS.md' }),
    ).toMatchObject({
      code: 'outside-walk',
      reason: `windsurf mode reads the directories from the git root ${root} down to ${app}, and every directory below ${app}; ${join(root, 'other')} is not one of them`,
    })
  })

  it('reads a rule of exactly 12 000 characters whole, and cuts a longer AGENTS.md where it says', async () => {
    const line = 'a rule line of forty characters, or so.\n'
    const exact = line.repeat(LIMIT / line.length)
    const long = `${'x'.repeat(LIMIT + 49)}\n`
    const root = await fixtureTree({
      '.git': { dir: true },
      '.windsurf/rules/exact.md': `---\ntrigger: always_on\n---\n${exact}`,
      'AGENTS.md': long,
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'windsurf' })
    expect(exact).toHaveLength(LIMIT)
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([
      [join(root, '.windsurf/rules/exact.md'), false],
      [join(root, 'AGENTS.md'), true],
    ])
    expect(found.text).toContain(`-->\n${exact}`)
    expect(found.text).toContain(long.slice(0, LIMIT))
    expect(found.text).not.toContain(long.slice(0, LIMIT + 1))
    expect(found.diagnostics).toEqual([
      {
        code: 'truncated',
        severity: 'warning',
        message:
          'Windsurf reads only the first 12 000 characters of AGENTS.md; its last 50 never reach the model. Split the rule into smaller files.',
        path: join(root, 'AGENTS.md'),
      },
    ])
  })
})
