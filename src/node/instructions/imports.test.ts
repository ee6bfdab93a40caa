import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { findImportLines } from './imports.js'

afterAll(removeFixtures)

describe('findImportLines', () => {
  it('finds lines holding only @path, outside fenced code, and leaves prose alone', () => {
    const text =
      'intro @inline.md\n@a.md\n  @b/c.md  \n```\n@code.md\n```\n~~~~\n@tilde.md\n~~~~\nmail me @ home\n@d.md'
    expect(findImportLines(text).map((line) => line.target)).toEqual(['a.md', 'b/c.md', 'd.md'])
  })

  it('finds exactly the import lines of any mix of prose, fences and imports', () => {
    const line = fc.oneof(
      fc.stringMatching(/^[a-z0-9./]{1,12}$/).map((target) => ({ kind: 'import' as const, target })),
      fc
        .stringMatching(/^[a-z @]{0,20}$/)
        .filter((prose) => !/^\s*@\S+\s*$/.test(prose))
        .map((prose) => ({ kind: 'prose' as const, prose })),
      fc.constantFrom('```', '~~~').map((fence) => ({ kind: 'fence' as const, fence })),
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), (lines, crlf) => {
        let open: string | undefined
        const expected: string[] = []
        const rendered = lines.map((l) => {
          if (l.kind === 'fence') {
            if (open === undefined) open = l.fence
            else if (open === l.fence) open = undefined
            return l.fence
          }
          if (l.kind === 'import') {
            if (open === undefined) expected.push(l.target)
            return `@${l.target}`
          }
          return l.prose
        })
        const text = rendered.join(crlf ? '\r\n' : '\n')
        const found = findImportLines(text)
        expect(found.map((f) => f.target)).toEqual(expected)
        for (const f of found) expect(text.slice(f.start, f.end).trim()).toBe(`@${f.target}`)
      }),
    )
  })
})

describe('@path imports (sysprompt mode)', () => {
  it('inlines an import relative to the importing file and lists it under its importer', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': '# Root\n@docs/style.md\nafter\n',
      'docs/style.md': 'style rules\n@../shared/tone.md\n',
      'shared/tone.md': 'tone rules',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome() })
    expect(found.text).toBe('<!-- AGENTS.md -->\n# Root\nstyle rules\ntone rules\nafter\n')
    expect(found.files).toHaveLength(1)
    expect(found.files[0]!.imports?.map((f) => f.path)).toEqual([join(repo, 'docs/style.md')])
    expect(found.files[0]?.imports?.[0]?.imports?.map((f) => f.path)).toEqual([join(repo, 'shared/tone.md')])
    expect(found.diagnostics).toEqual([])
  })

  it('follows imports 5 deep and no deeper', async () => {
    const chain: Record<string, string> = { '.git': 'gitdir: x\n' }
    chain['AGENTS.md'] = 'level 0\n@l1.md\n'
    for (let i = 1; i <= 6; i++) chain[`l${i}.md`] = `level ${i}\n@l${i + 1}.md\n`
    const repo = await fixtureTree(chain)
    const options = { cwd: repo, home: await emptyHome() }
    const found = await discoverInstructions(options)
    expect(found.text).toBe(
      '<!-- AGENTS.md -->\nlevel 0\nlevel 1\nlevel 2\nlevel 3\nlevel 4\nlevel 5\n@l6.md\n',
    )
    expect(found.diagnostics).toMatchObject([{ code: 'import-too-deep', path: join(repo, 'l6.md') }])
    let depth = 0
    let file = found.files[0]
    while (file?.imports !== undefined) {
      file = file.imports[0]
      depth++
    }
    expect(depth).toBe(5)
    expect(await explainInstructions({ ...options, file: 'l6.md' })).toMatchObject({
      code: 'import-too-deep',
    })
    expect(await explainInstructions({ ...options, file: 'l5.md' })).toMatchObject({
      status: 'included',
      code: 'imported',
    })
  })

  it('reports a cycle and does not follow it', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'top\n@a.md\n',
      'a.md': 'a\n@b.md\n',
      'b.md': 'b\n@a.md\n@AGENTS.md\n',
    })
    const options = { cwd: repo, home: await emptyHome() }
    const found = await discoverInstructions(options)
    expect(found.text).toBe('<!-- AGENTS.md -->\ntop\na\nb\n@a.md\n@AGENTS.md\n')
    expect(found.diagnostics.map((d) => d.code)).toEqual(['import-cycle', 'import-cycle'])
    expect(found.diagnostics[0]!.message).toContain('AGENTS.md → a.md → b.md → a.md')
    // The files in the cycle are still loaded once: the refused re-import does not hide that.
    expect(await explainInstructions({ ...options, file: 'a.md' })).toMatchObject({ code: 'imported' })
    expect(await explainInstructions({ ...options, file: 'AGENTS.md' })).toMatchObject({ code: 'included' })
  })

  it('refuses an import escaping the root, lexically or through a link, without reading it', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': `@../${'x'}/escape.md\n@${join(outside, 'secret.md')}\n@link.md\n@missing.md\n`,
      'link.md': { link: join(outside, 'secret.md') },
    })
    const options = { cwd: repo, home: await emptyHome() }
    const found = await discoverInstructions(options)
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => d.code)).toEqual([
      'import-outside-root',
      'import-outside-root',
      'import-outside-root',
      'import-missing',
    ])
    expect(found.files[0]!.imports).toBeUndefined()
    expect(await explainInstructions({ ...options, file: 'link.md' })).toMatchObject({ code: 'outside-root' })
  })

  it('confines imports of the global file to its own directory', async () => {
    const home = await fixtureTree({
      '.config/sysprompt/AGENTS.md': 'global\n@extra.md\n@../../elsewhere.md\n',
      '.config/sysprompt/extra.md': 'global extra\n',
      'elsewhere.md': 'ELSEWHERE\n',
    })
    const repo = await fixtureTree({ '.git': { dir: true } })
    const found = await discoverInstructions({ cwd: repo, home })
    expect(found.text).toBe(
      '<!-- ~/.config/sysprompt/AGENTS.md -->\nglobal\nglobal extra\n@../../elsewhere.md\n',
    )
    expect(found.diagnostics.map((d) => d.code)).toEqual(['import-outside-root'])
  })

  it('leaves @ lines as text when imports are off', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'top\n@a.md\n', 'a.md': 'a\n' })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), imports: false })
    expect(found.text).toBe('<!-- AGENTS.md -->\ntop\n@a.md\n')
  })
})
