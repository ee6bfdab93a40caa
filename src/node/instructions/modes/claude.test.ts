import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { findClaudeImports } from './claude-imports.js'

afterAll(removeFixtures)

// Expected lists follow the Claude Code row of ANCHORS (Claude Code 2.1.332).
describe('claude mode: files and order', () => {
  async function tree() {
    const base = await fixtureTree({
      'CLAUDE.md': 'above the repository\n',
      'repo/.git': { dir: true },
      'repo/CLAUDE.md': 'root\n',
      'repo/AGENTS.md': 'unused: CLAUDE.md exists\n',
      'repo/.claude/CLAUDE.md': 'root, .claude\n',
      'repo/.claude/rules/b-style.md': '---\ndescription: style\n---\nstyle rule\n',
      'repo/.claude/rules/a/testing.md': 'testing rule\n',
      'repo/.claude/rules/ts-only.md': '---\npaths: ["**/*.ts"]\n---\nts rule\n',
      'repo/CLAUDE.local.md': 'root, local\n',
      'repo/pkg/CLAUDE.md': 'pkg\n',
      'repo/pkg/below/CLAUDE.md': 'below cwd\n',
    })
    const home = await fixtureTree({ '.claude/CLAUDE.md': 'global\n', '.claude/rules/mine.md': 'my rule\n' })
    return { base, repo: join(base, 'repo'), home }
  }

  it('walks every directory from the file-system root down to cwd, each with all its files', async () => {
    const { base, repo, home } = await tree()
    const options = { cwd: join(repo, 'pkg'), home, mode: 'claude' as const, fsRoot: base }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.claude/CLAUDE.md'),
      join(home, '.claude/rules/mine.md'),
      join(base, 'CLAUDE.md'),
      join(repo, 'CLAUDE.md'),
      join(repo, '.claude/CLAUDE.md'),
      join(repo, '.claude/rules/a/testing.md'),
      join(repo, '.claude/rules/b-style.md'),
      join(repo, 'CLAUDE.local.md'),
      join(repo, 'pkg/CLAUDE.md'),
    ])
    expect(found.text).toContain('<!-- .claude/rules/b-style.md -->\nstyle rule\n')
    expect(
      await explainInstructions({ ...options, file: join(repo, '.claude/rules/ts-only.md') }),
    ).toMatchObject({
      code: 'on-demand',
      status: 'on-demand',
    })
    expect(await explainInstructions({ ...options, file: join(repo, 'AGENTS.md') })).toMatchObject({
      code: 'fallback-unused',
    })
  })

  it('reads AGENTS.md in the place of CLAUDE.md when no CLAUDE.md is on the walk', async () => {
    const base = await fixtureTree({
      'repo/.git': { dir: true },
      'repo/AGENTS.md': 'root agents\n',
      'repo/CLAUDE.local.md': 'local\n',
      'repo/pkg/AGENTS.md': 'pkg agents\n',
    })
    const found = await discoverInstructions({
      cwd: join(base, 'repo/pkg'),
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path)).toEqual([
      join(base, 'repo/AGENTS.md'),
      join(base, 'repo/CLAUDE.local.md'),
      join(base, 'repo/pkg/AGENTS.md'),
    ])
  })
})

describe('claude mode: imports', () => {
  it('finds references outside code, with escapes and fragments handled', () => {
    const text =
      'See @docs/a.md and @./b.md then `@c.md`\n```\n@d.md\n```\n@~/e.md @/abs/f.md mail@g.md @my\\ file.md#part'
    expect(findClaudeImports(text)).toEqual(['docs/a.md', './b.md', '~/e.md', '/abs/f.md', 'my file.md'])
  })

  it('never reports a reference inside a fenced block or spanning lines', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant('```'), fc.string({ maxLength: 15 })), { maxLength: 20 }),
        (lines) => {
          const found = findClaudeImports(lines.join('\n'))
          for (const path of found) expect(path).not.toMatch(/\n/)
          const fenced = findClaudeImports(
            ['```', ...lines.filter((l) => !l.includes('`')), '```'].join('\n'),
          )
          expect(fenced).toEqual([])
        },
      ),
    )
  })

  it('adds each imported file as its own entry right after its importer, depth first, the @ line kept', async () => {
    const base = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': 'top\n@docs/a.md\n@c.md\n',
      'docs/a.md': 'a\n@b.md\n',
      'docs/b.md': 'b\n@../CLAUDE.md\n',
      'c.md': 'c\n@docs/a.md\n',
    })
    const found = await discoverInstructions({
      cwd: base,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: base,
    })
    expect(found.files.map((f) => f.path)).toEqual([
      join(base, 'CLAUDE.md'),
      join(base, 'docs/a.md'),
      join(base, 'docs/b.md'),
      join(base, 'c.md'),
    ])
    expect(found.text).toBe(
      [
        '<!-- CLAUDE.md -->',
        'top',
        '@docs/a.md',
        '@c.md',
        '',
        '<!-- docs/a.md (imported by CLAUDE.md) -->',
        'a',
        '@b.md',
        '',
        '<!-- docs/b.md (imported by docs/a.md) -->',
        'b',
        '@../CLAUDE.md',
        '',
        '<!-- c.md (imported by CLAUDE.md) -->',
        'c',
        '@docs/a.md',
        '',
      ].join('\n'),
    )
    expect(found.diagnostics.map((d) => d.code)).toEqual(['import-cycle'])
  })

  it('drops imports outside cwd and stops 5 deep', async () => {
    const files: Record<string, string> = {
      '.git': 'gitdir: x\n',
      'shared.md': 'shared, outside cwd\n',
      'pkg/CLAUDE.md': '@../shared.md\n@l1.md\n',
    }
    for (let i = 1; i <= 6; i++) files[`pkg/l${i}.md`] = `@l${i + 1}.md\n`
    const base = await fixtureTree(files)
    const options = { cwd: join(base, 'pkg'), home: await emptyHome(), mode: 'claude' as const, fsRoot: base }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path.slice(base.length + 1))).toEqual([
      'pkg/CLAUDE.md',
      'pkg/l1.md',
      'pkg/l2.md',
      'pkg/l3.md',
      'pkg/l4.md',
      'pkg/l5.md',
    ])
    expect(found.diagnostics.map((d) => d.code)).toEqual(['import-outside-cwd', 'import-too-deep'])
    expect(await explainInstructions({ ...options, file: join(base, 'shared.md') })).toMatchObject({
      code: 'outside-cwd',
    })
  })
})
