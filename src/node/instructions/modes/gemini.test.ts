import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { codeRegions, findGeminiImports } from './gemini-imports.js'

afterAll(removeFixtures)

// Expected lists follow the Gemini row of ANCHORS (Gemini CLI core 0.61.0).
describe('gemini mode: files and order', () => {
  async function tree() {
    const base = await fixtureTree({
      'GEMINI.md': 'above the git root\n',
      'repo/.git': { dir: true },
      'repo/GEMINI.md': 'root\n',
      'repo/CLAUDE.md': 'never read\n',
      'repo/AGENTS.md': 'read only when named\n',
      'repo/Apps/GEMINI.md': 'apps\n',
      'repo/Apps/web/GEMINI.md': 'web\n',
      'repo/Apps/web/src/GEMINI.md': 'below cwd\n',
      'repo/Apps/web/blank/GEMINI.md': '  \n',
    })
    const home = await fixtureTree({ '.gemini/GEMINI.md': 'global\n' })
    return { repo: join(base, 'repo'), home }
  }

  it('loads the global file, then the project paths from the git root to cwd sorted as plain strings', async () => {
    const { repo, home } = await tree()
    const options = { cwd: join(repo, 'Apps/web'), home, mode: 'gemini' as const }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.gemini/GEMINI.md'),
      join(repo, 'Apps/GEMINI.md'),
      join(repo, 'Apps/web/GEMINI.md'),
      join(repo, 'GEMINI.md'),
    ])
    expect(await explainInstructions({ ...options, file: join(repo, 'CLAUDE.md') })).toMatchObject({
      code: 'not-a-candidate',
    })
    // Below cwd: not read at start-up, but just-in-time context when the agent works there.
    expect(await explainInstructions({ ...options, file: 'src/GEMINI.md' })).toMatchObject({
      status: 'on-demand',
      code: 'on-demand',
    })
  })

  it('adds configured names to GEMINI.md instead of replacing it', async () => {
    const { repo } = await tree()
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      names: ['AGENTS.md'],
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'GEMINI.md')])
  })

  it('reads cwd alone outside a git repository and leaves blank files out', async () => {
    const base = await fixtureTree({
      'GEMINI.md': 'parent\n',
      'work/GEMINI.md': '\n\n',
      'other/GEMINI.md': ' x \n',
    })
    const home = await emptyHome()
    const blank = await discoverInstructions({ cwd: join(base, 'work'), home, mode: 'gemini', fsRoot: base })
    expect(blank.files).toEqual([])
    const other = await discoverInstructions({ cwd: join(base, 'other'), home, mode: 'gemini', fsRoot: base })
    expect(other.text).toBe('<!-- GEMINI.md -->\nx\n')
  })
})

describe('gemini mode: imports', () => {
  it('finds references after whitespace, skipping those in backtick spans', () => {
    const text = 'see @a.md and ` @b.md ` or mail@c.md\n@./d.md @9.md @/e.md\n```\n@f.md\n```'
    const refs = findGeminiImports(text)
    expect(refs.map((r) => r.path)).toEqual(['a.md', 'b.md', './d.md', '/e.md', 'f.md'])
    const regions = codeRegions(text)
    const live = refs.filter((r) => !regions.some(([s, e]) => r.start >= s && r.start < e))
    expect(live.map((r) => r.path)).toEqual(['a.md', './d.md', '/e.md'])
  })

  it('only ever finds an @ at a word start followed by a path-like token', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        for (const ref of findGeminiImports(text)) {
          expect(text[ref.start]).toBe('@')
          expect(ref.start === 0 || /[ \t\r\n]/.test(text[ref.start - 1]!)).toBe(true)
          expect(text.slice(ref.start + 1, ref.end)).toBe(ref.path)
          expect(ref.path).toMatch(/^[./A-Za-z][^ \t\r\n]*$/)
        }
        for (const [s, e] of codeRegions(text)) {
          expect(text[s]).toBe('`')
          expect(text[e - 1]).toBe('`')
        }
      }),
    )
  })

  it('inlines with HTML comment markers, and a failed import becomes a comment', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': 'top @./a.md and ` @./a.md`\n@missing.md\n@../escape.md\n',
      'a.md': 'A',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
    expect(found.text).toBe(
      [
        '<!-- GEMINI.md -->',
        'top <!-- Imported from: ./a.md -->',
        'A',
        '<!-- End of import from: ./a.md --> and ` @./a.md`',
        `<!-- Import failed: missing.md - ENOENT: no such file or directory, access '${join(repo, 'missing.md')}' -->`,
        '<!-- Import failed: ../escape.md - Path traversal attempt -->',
        '',
      ].join('\n'),
    )
    expect(found.files[0]!.imports?.map((f) => f.path)).toEqual([join(repo, 'a.md')])
    expect(found.diagnostics.map((d) => d.code)).toEqual(['import-missing', 'import-outside-root'])
  })

  it('refuses a link out, a secret, a URL, a missing file, an escape and a FIFO, each at its line', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': 'top\n@link.md\n@.env\n@https://example.com/x.md\n@missing.md\n@../escape.md\n@fifo.md\n',
      'link.md': { link: join(outside, 'secret.md') },
      '.env': 'KEY=1\n',
    })
    execFileSync('mkfifo', [join(repo, 'fifo.md')])
    const home = await emptyHome()
    const found = await discoverInstructions({ cwd: repo, home, mode: 'gemini' })
    expect(found.text).toBe(
      [
        '<!-- GEMINI.md -->',
        'top',
        '<!-- Import failed: link.md - Path traversal attempt -->',
        '<!-- Import failed: .env - on the deny-list of secret-bearing files -->',
        '<!-- Import failed: https://example.com/x.md - Path traversal attempt -->',
        `<!-- Import failed: missing.md - ENOENT: no such file or directory, access '${join(repo, 'missing.md')}' -->`,
        '<!-- Import failed: ../escape.md - Path traversal attempt -->',
        '<!-- Import failed: fifo.md - not a readable text file -->',
        '',
      ].join('\n'),
    )
    const leaves = 'Gemini CLI leaves an "Import failed" comment.'
    const deny =
      'is on the deny-list of secret-bearing files (`.env`); pass --allow-file (`allowFiles`) to read it anyway'
    expect(found.diagnostics.map((d) => [d.code, d.message, d.site?.line])).toEqual([
      ['import-outside-root', `GEMINI.md imports link.md, which resolves outside the root; ${leaves}`, 2],
      ['import-denied', `GEMINI.md imports .env, which ${deny}; ${leaves}`, 3],
      [
        'import-outside-root',
        `GEMINI.md imports https://example.com/x.md, outside ${repo}; it was not read.`,
        4,
      ],
      ['import-missing', `GEMINI.md imports missing.md, which does not exist; ${leaves}`, 5],
      ['import-outside-root', `GEMINI.md imports ../escape.md, outside ${repo}; it was not read.`, 6],
      [
        'unreadable',
        `GEMINI.md imports fifo.md, which is not a regular file (a directory, FIFO or device); ${leaves}`,
        7,
      ],
    ])
    expect(found.diagnostics.every((d) => d.site?.path === join(repo, 'GEMINI.md'))).toBe(true)
    const why = async (file: string) => {
      const { code, reason } = await explainInstructions({ cwd: repo, home, mode: 'gemini', file })
      return [code, reason]
    }
    // The explanation speaks sysprompt's words, as the other modes' imports do; Gemini CLI's own
    // ("Path traversal attempt", "ENOENT: …") stay in the comment it leaves in the text.
    expect(await why('link.md')).toEqual([
      'outside-root',
      'imported by GEMINI.md, but it resolves outside the root, so it was not read',
    ])
    expect(await why('.env')).toEqual(['denied', `imported by GEMINI.md, but it ${deny}`])
    expect(await why('missing.md')).toEqual(['missing', 'imported by GEMINI.md, but it does not exist'])
    expect(await why('fifo.md')).toEqual([
      'unreadable',
      'imported by GEMINI.md, but it is not a regular file (a directory, FIFO or device)',
    ])
    expect(await why('../escape.md')).toEqual([
      'outside-root',
      `imported by GEMINI.md, but it lies outside ${repo}, so it was not read`,
    ])
  })

  it('inlines the top file a second time when a cycle leads back to it', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': 'top\n@b.md',
      'b.md': 'b\n@GEMINI.md',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
    expect(found.text).toBe(
      [
        '<!-- GEMINI.md -->',
        'top',
        '<!-- Imported from: b.md -->',
        'b',
        '<!-- Imported from: GEMINI.md -->',
        'top',
        '<!-- File already processed: b.md -->',
        '<!-- End of import from: GEMINI.md -->',
        '<!-- End of import from: b.md -->',
        '',
      ].join('\n'),
    )
    expect(found.diagnostics.map((d) => d.code)).toEqual(['import-cycle'])
  })

  it('inlines five levels and leaves the references of the fifth as text', async () => {
    const files: Record<string, string> = { '.git': 'gitdir: x\n', 'GEMINI.md': '0 @l1.md' }
    for (let i = 1; i <= 6; i++) files[`l${i}.md`] = `${i} @l${i + 1}.md`
    const repo = await fixtureTree(files)
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
    expect(found.text).toContain('5 @l6.md')
    expect(found.text).not.toContain('6 @l7.md')
    expect(found.diagnostics.map((d) => [d.code, d.severity, d.message])).toEqual([
      [
        'import-too-deep',
        'info',
        'l5.md is imported 5 deep; Gemini CLI leaves its own @ references as text.',
      ],
    ])
  })
})
