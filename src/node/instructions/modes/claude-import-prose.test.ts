import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { findClaudeReferences, looksLikePath } from './claude-imports.js'

afterAll(removeFixtures)

// Claude Code tries every `@word` of a CLAUDE.md as an import and skips a missing one without a
// word. A finding helps only where the author wrote a path: prose and package names are not imports.
describe('claude mode: which missing references are worth a warning', () => {
  it('warns once per reference written as a path, at its line, quoted without trailing punctuation; never for prose', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      README: 'the readme\n',
      'docs/guide.md': 'the guide\n',
      'CLAUDE.md': [
        'Project notes.', // 1
        '', // 2
        'Thanks @user" for the fix, and @here.', // 3
        'Models come from the npm scope @cline/llms and @types/node.', // 4
        'Mail dev@example.com or ping @@team.', // 5
        'See @README and @docs/guide.md.', // 6
        'Style: @docs/style.md', // 7
        'Again: @docs/style.md', // 8
        'Run `cat @docs/nope.md` first.', // 9
      ].join('\n'),
    })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: repo,
    })
    // `@README` loads as Claude Code loads it; `@docs/guide.md.` names `docs/guide.md.`, which it skips.
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'CLAUDE.md'), join(repo, 'README')])
    expect(found.diagnostics.map((d) => [d.site?.line, d.severity, d.message])).toEqual([
      [
        6,
        'warning',
        'CLAUDE.md:6: `@docs/guide.md` is read as docs/guide.md., with the "." after it, which does not exist; Claude Code skips it silently (put a space before the ".").',
      ],
      [
        7,
        'warning',
        'CLAUDE.md:7: `@docs/style.md` names docs/style.md, which does not exist; Claude Code skips it silently.',
      ],
      [
        8,
        'warning',
        'CLAUDE.md:8: `@docs/style.md` names docs/style.md, which does not exist; Claude Code skips it silently.',
      ],
    ])
    expect(found.diagnostics.map((d) => d.site?.column)).toEqual([17, 8, 8])
  })

  it('places each reference at its `@`', () => {
    const text = 'a\n  see @x/y.md and\t@./z.md\n@~/w.md'
    expect(
      findClaudeReferences(text).map((r) => [
        r.path,
        text[r.start],
        text.slice(r.start + 1, r.start + 1 + r.path.length),
      ]),
    ).toEqual([
      ['x/y.md', '@', 'x/y.md'],
      ['./z.md', '@', './z.md'],
      ['~/w.md', '@', '~/w.md'],
    ])
  })

  it('takes paths for paths: a slash, a file extension or a leading ./ ../ ~/ /', () => {
    for (const path of [
      'docs/a.md',
      'a.md',
      'README.md.',
      './x',
      '../x',
      '~/x',
      '/etc/x',
      'Docs/Guide',
      'a/b/c',
    ])
      expect(looksLikePath(path), path).toBe(true)
    for (const path of [
      'user"',
      'here.',
      'README',
      'cline/llms',
      'types/node',
      'vue/compiler-sfc',
      '"',
      '...',
    ])
      expect(looksLikePath(path), path).toBe(false)
  })

  it('never takes a word with trailing punctuation for a path (property)', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
    const punctuation = fc.stringMatching(/^[.,;:!?'")\]]{0,3}$/)
    fc.assert(fc.property(word, punctuation, (w, p) => !looksLikePath(`${w}${p}`)))
  })

  it('finds no warning in prose that names no path (property)', async () => {
    const repo = await fixtureTree({ '.git': { dir: true } })
    const home = await emptyHome()
    const token = fc.oneof(
      fc.stringMatching(/^[A-Za-z]{1,8}$/),
      fc.stringMatching(/^@[A-Za-z0-9_-]{1,8}[.,;:!?'")]{0,2}$/),
      fc.stringMatching(/^@[a-z0-9][a-z0-9-]{0,5}\/[a-z0-9][a-z0-9-]{0,5}$/),
      fc.stringMatching(/^[a-z]{1,6}@[a-z]{1,6}\.(com|org)$/),
    )
    const prose = fc.array(
      fc.array(token, { minLength: 1, maxLength: 8 }).map((t) => t.join(' ')),
      {
        minLength: 1,
        maxLength: 6,
      },
    )
    const { writeFile } = await import('node:fs/promises')
    await fc.assert(
      fc.asyncProperty(prose, async (lines) => {
        await writeFile(join(repo, 'CLAUDE.md'), lines.join('\n'))
        const found = await discoverInstructions({ cwd: repo, home, mode: 'claude', fsRoot: repo })
        expect(found.diagnostics).toEqual([])
      }),
      { numRuns: 30 },
    )
  })
})
