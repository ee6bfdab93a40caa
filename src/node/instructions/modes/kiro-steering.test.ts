import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Kiro's steering (kiro.dev/docs/steering): global then workspace steering
// files, AGENTS.md at the root, and each file's inclusion in Kiro's words.
describe('kiro mode steering', () => {
  it('reads global steering (.md, not below) as global instructions before the workspace, each confined to its own directory', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.kiro/steering/project.md': 'workspace steering\n',
      '.kiro/steering/notes.txt': 'not steering\n',
      '.kiro/steering/sub/deep.md': 'too deep\n',
      'AGENTS.md': 'agents\n',
    })
    const home = await fixtureTree({
      '.kiro/steering/mine.md': 'global steering\n',
      '.kiro/steering/other.txt': 'not steering\n',
      '.kiro/steering/sub/deep.md': 'too deep\n',
      '.kiro/steering/base.txt': 'linked beside\n',
      '.kiro/steering/linked.md': { link: 'base.txt' },
      '.kiro/steering/leak.md': { link: '../../secret.md' },
      'secret.md': 'SECRET\n',
    })
    const steering = join(home, '.kiro/steering')
    const found = await discoverInstructions({ cwd: root, home, mode: 'kiro' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(steering, 'linked.md'),
      join(steering, 'mine.md'),
      join(root, '.kiro/steering/project.md'),
      join(root, 'AGENTS.md'),
    ])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['outside-root', join(steering, 'leak.md')],
    ])
    const why = await explainInstructions({ cwd: root, home, mode: 'kiro', file: join(steering, 'mine.md') })
    expect(why).toMatchObject({
      code: 'included',
      reason: 'loaded as global instructions, file 2 in load order',
    })
  })

  it('skips a workspace steering file that links out of the project and reads the rest', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const root = await fixtureTree({
      '.git': { dir: true },
      '.kiro/steering/leak.md': { link: join(outside, 'secret.md') },
      '.kiro/steering/product.md': 'product\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'kiro' })
    expect(found.files.map((f) => f.path)).toEqual([join(root, '.kiro/steering/product.md')])
    expect(found.diagnostics.map((d) => d.code)).toEqual(['outside-root'])
  })

  it('gives the inclusion in its reason, and never applies an inclusion Kiro does not know', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.kiro/steering/api.md': '---\ninclusion: auto\ndescription: API design\n---\nAPI.\n',
      '.kiro/steering/hand.md': '---\ninclusion: manual\n---\nBy hand.\n',
      '.kiro/steering/odd.md': '---\ninclusion: sometimes\n---\nOdd.\n',
    })
    const base = { cwd: root, home: await emptyHome(), mode: 'kiro' as const }
    const found = await discoverInstructions(base)
    expect(found.files).toEqual([])
    expect(found.onRequest.map((r) => [r.path, r.activation, r.description])).toEqual([
      [join(root, '.kiro/steering/api.md'), 'requested', 'API design'],
      [join(root, '.kiro/steering/hand.md'), 'manual', undefined],
      [join(root, '.kiro/steering/odd.md'), 'manual', undefined],
    ])
    expect(await explainInstructions({ ...base, file: '.kiro/steering/api.md' })).toMatchObject({
      code: 'on-request',
      reason:
        'Kiro loads it only when the model asks for it by its description (inclusion: auto); it is not in the prompt at start',
    })
    expect(await explainInstructions({ ...base, file: '.kiro/steering/hand.md' })).toMatchObject({
      code: 'manual-rule',
      reason: 'Kiro loads it only when the user names it (inclusion: manual); it never loads by itself',
    })
    expect(await explainInstructions({ ...base, file: '.kiro/steering/odd.md' })).toMatchObject({
      code: 'manual-rule',
      activation: 'manual',
      reason:
        'Kiro loads it only when the user names it (inclusion sometimes is not one Kiro knows); it never loads by itself',
    })
  })

  it('explains an absent AGENTS.md at the root as missing, and one elsewhere as outside the workspace root', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, 'docs/AGENTS.md': 'not read\n' })
    const base = { cwd: root, home: await emptyHome(), mode: 'kiro' as const }
    expect(await explainInstructions({ ...base, file: 'AGENTS.md' })).toMatchObject({
      code: 'missing',
      reason: 'there is no file AGENTS.md',
    })
    expect(await explainInstructions({ ...base, file: 'docs/AGENTS.md' })).toMatchObject({
      code: 'outside-walk',
      reason: `kiro mode reads the workspace root ${root}; ${join(root, 'docs')} is not one of them`,
    })
  })
})
