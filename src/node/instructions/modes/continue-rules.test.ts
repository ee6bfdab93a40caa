import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Continue's rules (docs.continue.dev/customize/deep-dives/rules): every .md
// of .continue/rules/ (recursively), then the global ones, each filed by its
// alwaysApply, globs and regex.
describe('continue mode rules', () => {
  it('reads the workspace rules, then the global ones (.md only, below too), each global one confined to its own directory', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.continue/rules/a.md': 'workspace rule\n',
      '.continue/rules/notes.txt': 'not a rule\n',
      '.continue/rules/sub/deep.md': 'deeper rule\n',
      // Continue reads .continue/prompts too (loadMarkdownRules.ts `dirsToCheck`).
      '.continue/prompts/p.md': 'a prompt without invokable, a rule\n',
    })
    const home = await fixtureTree({
      '.continue/rules/g.md': 'global rule\n',
      '.continue/prompts/q.md': 'a global prompt without invokable, a rule\n',
      '.continue/rules/other.txt': 'not a rule\n',
      '.continue/rules/sub/h.md': 'deeper global rule\n',
      '.continue/rules/base.txt': 'linked beside\n',
      '.continue/rules/linked.md': { link: 'base.txt' },
      '.continue/rules/leak.md': { link: '../../secret.md' },
      'secret.md': 'SECRET\n',
    })
    const rules = join(home, '.continue/rules')
    const found = await discoverInstructions({ cwd: root, home, mode: 'continue' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(root, '.continue/rules/a.md'),
      join(root, '.continue/rules/sub/deep.md'),
      join(rules, 'g.md'),
      join(rules, 'linked.md'),
      join(rules, 'sub/h.md'),
      join(root, '.continue/prompts/p.md'),
      join(home, '.continue/prompts/q.md'),
    ])
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([['outside-root', join(rules, 'leak.md')]])
    const why = await explainInstructions({ cwd: root, home, mode: 'continue', file: join(rules, 'g.md') })
    expect(why).toMatchObject({
      code: 'included',
      reason: 'loaded as global instructions, file 3 in load order',
    })
  })

  it('skips a workspace rule that links out of the project and reads the rest', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const root = await fixtureTree({
      '.git': { dir: true },
      '.continue/rules/leak.md': { link: join(outside, 'secret.md') },
      '.continue/rules/plain.md': 'plain\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'continue' })
    expect(found.files.map((f) => f.path)).toEqual([join(root, '.continue/rules/plain.md')])
    expect(found.diagnostics.map((d) => d.code)).toEqual(['outside-root'])
  })

  it('files each rule by alwaysApply, globs and regex', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.continue/rules/pinned.md': '---\nalwaysApply: true\nglobs: "src/**"\n---\nPinned.\n',
      '.continue/rules/regex.md': '---\nregex: "^import"\n---\nAny file, by its text.\n',
      '.continue/rules/both.md': '---\nglobs: "src/**"\nregex: "^import"\n---\nSource only.\n',
      '.continue/rules/number.md': '---\nregex: 5\n---\nNot a pattern.\n',
      '.continue/rules/ask.md': '---\nalwaysApply: false\ndescription: Performance work\n---\nOn request.\n',
      '.continue/rules/hand.md': '---\nalwaysApply: false\n---\nBy hand.\n',
    })
    const rule = (name: string) => join(root, '.continue/rules', name)
    const base = { cwd: root, home: await emptyHome(), mode: 'continue' as const }
    const found = await discoverInstructions({ ...base, paths: ['doc/notes.md'] })
    expect(found.files.map((f) => f.path)).toEqual([rule('number.md'), rule('pinned.md')])
    expect(found.onDemand.map((f) => f.path)).toEqual([rule('both.md'), rule('regex.md')])
    expect(found.lateBound.map((f) => f.path)).toEqual([rule('regex.md')])
    expect(found.onRequest.map((r) => [r.path, r.activation, r.description])).toEqual([
      [rule('ask.md'), 'requested', 'Performance work'],
      [rule('hand.md'), 'manual', undefined],
    ])
    expect(await explainInstructions({ ...base, file: rule('ask.md') })).toMatchObject({
      code: 'on-request',
      reason:
        'Continue loads it only when the model asks for it by its description (alwaysApply: false and no globs); it is not in the prompt at start',
    })
    expect(await explainInstructions({ ...base, file: rule('hand.md') })).toMatchObject({
      code: 'manual-rule',
      reason:
        'Continue loads it only when the user names it (alwaysApply: false and no globs); it never loads by itself',
    })
  })
})
