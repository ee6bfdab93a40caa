import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

afterAll(removeFixtures)

// What an import that is not followed says, whole: which file imports what,
// why it was refused and what to do, in the diagnostic and in `explain`.

describe('an import that is not followed says why and what to do', () => {
  it('names the importer, the target and the fix for each refusal', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': '@../x/escape.md\n@link.md\n@missing.md\n@.env\n@a.md\n',
      'link.md': { link: join(outside, 'secret.md') },
      '.env': 'KEY=1\n',
      'a.md': 'a\n@b.md\n',
      'b.md': 'b\n@a.md\n',
    })
    const options = { cwd: repo, home: await emptyHome() }
    const found = await discoverInstructions(options)
    // Refused lines stay as written; the cycle's files are inlined once.
    expect(found.text).toBe(
      '<!-- AGENTS.md -->\n@../x/escape.md\n@link.md\n@missing.md\n@.env\na\nb\n@a.md\n',
    )
    const deny =
      'is on the deny-list of secret-bearing files (`.env`); pass --allow-file (`allowFiles`) to read it anyway'
    expect(found.diagnostics).toEqual([
      {
        code: 'import-outside-root',
        severity: 'warning',
        message: `AGENTS.md imports ../x/escape.md, which lies outside ${repo}; it was not read. Move the file inside the project.`,
        path: join(repo, '../x/escape.md'),
      },
      {
        code: 'import-outside-root',
        severity: 'warning',
        message: `AGENTS.md imports link.md, which lies outside ${repo}; it was not read. Move the file inside the project.`,
        path: join(repo, 'link.md'),
      },
      {
        code: 'import-missing',
        severity: 'warning',
        message: 'AGENTS.md imports missing.md, which does not exist; the @ line was left as written.',
        path: join(repo, 'missing.md'),
      },
      {
        code: 'import-denied',
        severity: 'warning',
        message: `AGENTS.md imports .env, which ${deny}; the @ line was left as written.`,
        path: join(repo, '.env'),
      },
      {
        code: 'import-cycle',
        severity: 'warning',
        message: 'import cycle AGENTS.md → a.md → b.md → a.md: the import of a.md by b.md was not followed.',
        path: join(repo, 'a.md'),
      },
    ])
    const why = (file: string) => explainInstructions({ ...options, file })
    expect(await why('../x/escape.md')).toEqual({
      file: join(repo, '../x/escape.md'),
      status: 'skipped',
      code: 'outside-root',
      reason: `imported by AGENTS.md, but it lies outside ${repo}, so it was not read`,
    })
    expect((await why('link.md')).reason).toBe(
      `imported by AGENTS.md, but it lies outside ${repo}, so it was not read`,
    )
    expect(await why('missing.md')).toMatchObject({
      code: 'missing',
      reason: 'imported by AGENTS.md, but it does not exist',
    })
    expect(await why('.env')).toMatchObject({
      code: 'denied',
      reason: `imported by AGENTS.md, but it ${deny}`,
    })
    expect(await why('b.md')).toMatchObject({ code: 'imported', reason: 'inlined where a.md imports it' })
  })

  it('says how deep the refused import sits and where to import it from instead', async () => {
    const chain: Record<string, string> = { '.git': 'gitdir: x\n', 'AGENTS.md': 'level 0\n@l1.md\n' }
    for (let i = 1; i <= 6; i++) chain[`l${i}.md`] = `level ${i}\n@l${i + 1}.md\n`
    const repo = await fixtureTree(chain)
    const options = { cwd: repo, home: await emptyHome() }
    const found = await discoverInstructions(options)
    expect(found.diagnostics).toEqual([
      {
        code: 'import-too-deep',
        severity: 'warning',
        message:
          'l5.md imports l6.md at depth 6; imports nest at most 5 deep, so it was not followed. Import it from a shallower file.',
        path: join(repo, 'l6.md'),
      },
    ])
    expect((await explainInstructions({ ...options, file: 'l6.md' })).reason).toBe(
      'imported by l5.md deeper than 5 levels',
    )
  })
})
