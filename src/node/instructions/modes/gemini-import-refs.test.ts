import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { codeRegions, findGeminiImports } from './gemini-imports.js'

afterAll(removeFixtures)

// Gemini CLI core 0.61.0's `@path` references and their inlining (see gemini-imports.ts).
describe('gemini imports: the references it finds', () => {
  const paths = (text: string) => findGeminiImports(text).map((r) => r.path)

  it('takes tabs and carriage returns as whitespace, before and after a reference', () => {
    expect(paths('a\t@b.md\r@c.md\tnext')).toEqual(['b.md', 'c.md'])
    expect(paths('one\r\n@d.md\r\n')).toEqual(['d.md'])
  })

  it('finds a reference at the very start of the text', () => {
    expect(findGeminiImports('@a.md and more')).toEqual([{ start: 0, end: 5, path: 'a.md' }])
  })

  it('ends a reference at the end of the text', () => {
    expect(findGeminiImports('see @a.md')).toEqual([{ start: 4, end: 9, path: 'a.md' }])
  })

  it('finds nothing after an @ inside a word, however the text goes on', () => {
    expect(paths('mail@c.md and more words')).toEqual([])
  })

  it('finds nothing in an @ standing alone, and goes on past it', () => {
    expect(paths('write to me @ home')).toEqual([])
    expect(paths('ends with @')).toEqual([])
    expect(paths('@ then @x.md')).toEqual(['x.md'])
  })

  it('closes a backtick span only with a run of the same length', () => {
    const text = '`` a ` b `` then `c`'
    expect(codeRegions(text).map(([s, e]) => text.slice(s, e))).toEqual(['`` a ` b ``', '`c`'])
  })
})

describe('gemini imports: inlining', () => {
  it('says an inlined file is included where its importer imports it', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': 'top @a.md\n', 'a.md': 'A\n' })
    const why = await explainInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      file: 'a.md',
    })
    expect(why).toMatchObject({
      status: 'included',
      code: 'imported',
      reason: 'inlined where GEMINI.md imports it',
    })
  })

  it('says nothing about depth when the fifth file has no reference of its own', async () => {
    const files: Record<string, string> = { '.git': 'gitdir: x\n', 'GEMINI.md': '0 @l1.md' }
    for (let i = 1; i <= 4; i++) files[`l${i}.md`] = `${i} @l${i + 1}.md`
    files['l5.md'] = 'five'
    const repo = await fixtureTree(files)
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
    expect(found.text).toContain('five')
    expect(found.diagnostics).toEqual([])
    // Each file lists the one it imports; the fifth imports nothing.
    let file = found.files[0]!
    for (let i = 1; i <= 5; i++) {
      expect(file.imports?.map((f) => f.path)).toEqual([join(repo, `l${i}.md`)])
      file = file.imports![0]!
    }
    expect(file.imports).toBeUndefined()
  })

  it('refuses file://, http:// and https:// references, but not a path that only contains one', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': '@http://example.com/x.md\n@file:///etc/x.md\n@notes/see-https://x.md\n',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
    const missing = join(repo, 'notes/see-https:/x.md')
    expect(found.text).toBe(
      [
        '<!-- GEMINI.md -->',
        '<!-- Import failed: http://example.com/x.md - Path traversal attempt -->',
        '<!-- Import failed: file:///etc/x.md - Path traversal attempt -->',
        `<!-- Import failed: notes/see-https://x.md - ENOENT: no such file or directory, access '${missing}' -->`,
        '',
      ].join('\n'),
    )
    expect(found.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['import-outside-root', 'warning'],
      ['import-outside-root', 'warning'],
      ['import-missing', 'warning'],
    ])
  })

  it('warns where a cycle stops, naming the importer and the file it imports again', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': 'top\n@b.md',
      'b.md': 'b\n@GEMINI.md',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
    expect(found.diagnostics.map((d) => [d.code, d.severity, d.message, d.path])).toEqual([
      [
        'import-cycle',
        'warning',
        'GEMINI.md imports b.md again within one import chain; Gemini CLI stops there.',
        join(repo, 'b.md'),
      ],
    ])
    // b.md is still inlined (once more than the chain allows): explained as imported.
    const why = await explainInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      file: 'b.md',
    })
    expect(why).toMatchObject({ status: 'included', code: 'imported' })
  })
})
