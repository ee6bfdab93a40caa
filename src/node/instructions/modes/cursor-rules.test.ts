import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Cursor's rules (cursor.com/docs/context/rules): `.mdc` files anywhere
// under `.cursor/rules`, filed by their front matter; what each activation
// gives and the words `explain` shows for it.
async function cursorRepository(): Promise<string> {
  return fixtureTree({
    '.git': { dir: true },
    '.cursor/notes.mdc': '---\nalwaysApply: true\n---\nNot in .cursor/rules.\n',
    '.cursor/rules/always.mdc': '---\nalwaysApply: true\n---\nAlways.\n',
    '.cursor/rules/deep/nested.mdc': '---\nalwaysApply: true\n---\nIn a subdirectory of the rules.\n',
    '.cursor/rules/ask.mdc': '---\ndescription: Database migrations\n---\nAsk.\n',
    '.cursor/rules/manual.mdc': 'By hand.\n',
    '.cursor/rules/text-true.mdc': '---\nalwaysApply: "true"\n---\nText true.\n',
    '.cursor/rules/ts.mdc': '---\nglobs: src/**/*.ts\n---\nTypeScript.\n',
    '.cursor/rules/notes.txt': 'Not a rule file.\n',
    'sub/file.md': 'Not an instruction file.\n',
  })
}

const file = (path: string) => ({
  path,
  bytes: expect.any(Number),
  hash: expect.any(String),
  truncated: false,
  activation: 'always',
})

const requested = (path: string, activation: 'requested' | 'manual', description?: string) => ({
  path,
  activation,
  ...(description === undefined ? {} : { description }),
  tokens: expect.any(Number),
  bytes: expect.any(Number),
  hash: expect.any(String),
})

describe('cursor mode rules', () => {
  it('loads the always rules of .cursor/rules at every depth, and nothing else of .cursor', async () => {
    const root = await cursorRepository()
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cursor' })
    expect(found.files).toEqual([
      file(join(root, '.cursor/rules/always.mdc')),
      file(join(root, '.cursor/rules/deep/nested.mdc')),
    ])
    expect(found.text).toBe(
      '<!-- .cursor/rules/always.mdc -->\nAlways.\n\n<!-- .cursor/rules/deep/nested.mdc -->\nIn a subdirectory of the rules.\n',
    )
    expect(found.diagnostics).toEqual([])
  })

  it('attaches a glob rule when a file matching its globs, relative to the root, is in context', async () => {
    const root = await cursorRepository()
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cursor' })
    expect(found.onDemand.map((f) => [f.path, f.activation, f.trigger])).toEqual([
      [
        join(root, '.cursor/rules/ts.mdc'),
        'glob',
        { kind: 'matches', globs: ['src/**/*.ts'], base: root, written: 'src/**/*.ts' },
      ],
    ])
  })

  it('lists a rule with a description as requested, with that description, and the others as manual', async () => {
    const root = await cursorRepository()
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cursor' })
    expect(found.onRequest).toStrictEqual([
      requested(join(root, '.cursor/rules/ask.mdc'), 'requested', 'Database migrations'),
      requested(join(root, '.cursor/rules/manual.mdc'), 'manual'),
      requested(join(root, '.cursor/rules/text-true.mdc'), 'manual'),
    ])
  })

  it('says why a rule is not in the prompt, in Cursor’s terms', async () => {
    const root = await cursorRepository()
    const home = await emptyHome()
    const why = (file: string) => explainInstructions({ cwd: root, home, mode: 'cursor', file })
    expect(await why('.cursor/rules/ask.mdc')).toMatchObject({
      status: 'skipped',
      code: 'on-request',
      reason:
        'Cursor loads it only when the model asks for it by its description (it has a description and no globs); it is not in the prompt at start',
    })
    expect(await why('.cursor/rules/manual.mdc')).toMatchObject({
      code: 'manual-rule',
      reason:
        'Cursor loads it only when the user names it (it has no alwaysApply, globs or description); it never loads by itself',
    })
    expect(await why('.cursor/rules/text-true.mdc')).toMatchObject({
      code: 'manual-rule',
      reason:
        'Cursor loads it only when the user names it (alwaysApply is the text "true", not the boolean); it never loads by itself',
    })
  })

  it('names the files it reads, and where, for a file it does not read', async () => {
    const root = await cursorRepository()
    const home = await emptyHome()
    const why = (file: string) => explainInstructions({ cwd: root, home, mode: 'cursor', file })
    const notRead = (shown: string) => ({
      status: 'skipped',
      code: 'not-a-candidate',
      reason: `cursor mode reads only .cursorrules, AGENTS.md in each directory, and no loaded file imports ${shown}`,
    })
    // Only a plain .md in .cursor/rules is reported as misnamed; any other file there is not a rule.
    expect(await why('.cursor/rules/notes.txt')).toMatchObject(notRead('.cursor/rules/notes.txt'))
    // An .mdc beside .cursor/rules/, not in it: the reason names Cursor's rule and where the file lies.
    expect(await why('.cursor/notes.mdc')).toMatchObject({
      code: 'not-a-candidate',
      reason:
        'Cursor reads project rules only as .mdc files inside a .cursor/rules/ directory, and only .cursorrules, AGENTS.md besides; .cursor/notes.mdc is in .cursor/, not inside a .cursor/rules/ directory, so Cursor never loads it',
    })
    expect(await why('sub/AGENTS.md')).toMatchObject({
      code: 'outside-walk',
      reason: `cursor mode reads the workspace root ${root}; ${join(root, 'sub')} is not one of them`,
    })
    expect(await why('AGENTS.md')).toMatchObject({ code: 'missing', reason: 'there is no file AGENTS.md' })
  })

  it('passes over a directory named like a rules file without a word', async () => {
    const root = await fixtureTree({
      '.git': { dir: true },
      '.cursorrules': { dir: true },
      'AGENTS.md': 'A\n',
    })
    const found = await discoverInstructions({ cwd: root, home: await emptyHome(), mode: 'cursor' })
    expect(found.files.map((f) => f.path)).toEqual([join(root, 'AGENTS.md')])
    expect(found.diagnostics).toEqual([])
  })
})
