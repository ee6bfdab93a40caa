import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type FixtureEntry,
  fixtureTree,
  removeFixtures,
} from '../../node/instructions/fixtures.test-helper.js'
import { lintConventions } from './conventions.js'

afterAll(removeFixtures)

/** A real git repository holding `entries`, every file tracked. */
async function repo(entries: Record<string, FixtureEntry>): Promise<string> {
  const root = await fixtureTree(entries)
  execFileSync('git', ['init', '-q', root])
  execFileSync('git', ['-C', root, 'add', '-A'])
  return root
}

async function lint(root: string, paths: string[] = [], modes?: ('claude' | 'codex' | 'copilot')[]) {
  return lintConventions({ root, cwd: root, options: { paths: paths.map((p) => join(root, p)) } }, modes)
}

const codes = (findings: { code: string }[]) => findings.map((f) => f.code)

describe('cross-convention rule lint', () => {
  it('names the tool that reads front-matter keys sitting in another tool’s rules', async () => {
    const root = await repo({
      'src/a.ts': 'x\n',
      '.claude/rules/big.md': '---\nglobs: src/**/*.ts\nalwaysApply: false\n---\nA rule for TypeScript.\n',
    })
    const found = (await lint(root)).filter((f) => f.code === 'foreign-front-matter')
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ file: join(root, '.claude/rules/big.md'), line: 2 })
    expect(found[0]!.message).toContain('read by Cursor and Windsurf and Continue')
    expect(found[0]!.message).toContain('loads this rule at every session start')
  })

  it('reports a glob matching no tracked file, at its line', async () => {
    const root = await repo({
      'src/a.ts': 'x\n',
      '.cursor/rules/ts.mdc': '---\ndescription: ts\nglobs: ["lib/**/*.ts"]\n---\nTypeScript.\n',
      '.cursor/rules/live.mdc': '---\nglobs: ["src/**/*.ts"]\n---\nLive.\n',
    })
    const found = (await lint(root)).filter((f) => f.code === 'glob-matches-nothing')
    expect(found.map((f) => [f.file, f.line])).toEqual([[join(root, '.cursor/rules/ts.mdc'), 3]])
    expect(found[0]!.message).toContain('`lib/**/*.ts`')
  })

  it('reports Copilot’s applyTo given as a YAML list', async () => {
    const root = await repo({
      '.github/instructions/a.instructions.md': '---\napplyTo:\n  - "src/**"\n  - "lib/**"\n---\nA.\n',
    })
    const found = (await lint(root)).filter((f) => f.code === 'applyto-list')
    expect(found).toHaveLength(1)
    expect(found[0]!.line).toBe(2)
    expect(found[0]!.message).toContain('applyTo: "src/**,lib/**"')
  })

  it('reports a .md where Cursor requires .mdc', async () => {
    const root = await repo({ '.cursor/rules/style.md': '---\nalwaysApply: true\n---\nStyle.\n' })
    const found = await lint(root)
    expect(codes(found)).toContain('md-not-mdc')
    expect(found.find((f) => f.code === 'md-not-mdc')!.message).toContain('style.mdc')
    // It has its own finding, not a second one saying the same.
    expect(codes(found)).not.toContain('rule-never-loads')
  })

  it('reports a rule no mode would ever load, and one that only loads by hand', async () => {
    const root = await repo({
      '.github/instructions/notes.md': 'Not an .instructions.md file.\n',
      '.kiro/steering/hand.md': '---\ninclusion: manual\n---\nBy hand.\n',
      '.kiro/steering/live.md': 'Always.\n',
    })
    const found = (await lint(root)).filter((f) => f.code === 'rule-never-loads')
    expect(found.map((f) => f.file)).toEqual([
      join(root, '.github/instructions/notes.md'),
      join(root, '.kiro/steering/hand.md'),
    ])
    expect(found[0]!.message).toContain('reads only *.instructions.md')
    expect(found[1]!.message).toContain('only when named by hand')
  })

  it('reports a text file standing where a link was meant', async () => {
    const root = await repo({
      'AGENTS.md': '# Rules\n\nBe brief.\n',
      'CLAUDE.md': 'AGENTS.md\n',
      'NOTES.md': 'x',
    })
    const found = (await lint(root)).filter((f) => f.code === 'text-not-symlink')
    expect(found.map((f) => f.file)).toEqual([join(root, 'CLAUDE.md')])
    expect(found[0]!.message).toContain('holds only the path AGENTS.md')
  })

  it('does not take a real link or a one-word file for a text link', async () => {
    const root = await repo({
      'AGENTS.md': '# Rules\n',
      'CLAUDE.md': { link: 'AGENTS.md' },
      'GEMINI.md': 'Nothing\n',
    })
    expect(codes(await lint(root))).not.toContain('text-not-symlink')
  })

  it('reports the same file loaded twice through a link', async () => {
    const root = await repo({
      'AGENTS.md': '# Rules\n\nBe brief.\n',
      '.github/copilot-instructions.md': { link: '../AGENTS.md' },
    })
    const found = (await lint(root)).filter((f) => f.code === 'loaded-twice')
    expect(found.length).toBeGreaterThan(0)
    const copilot = found.find((f) => f.message.startsWith('copilot '))!
    expect(copilot.message).toContain('as .github/copilot-instructions.md and AGENTS.md')
  })

  it('reports text that differs between named harnesses, only when modes are named', async () => {
    const root = await repo({
      'AGENTS.md': '# Shared\n',
      '.github/copilot-instructions.md': 'Only Copilot reads this.\n',
    })
    expect(codes(await lint(root))).not.toContain('harnesses-differ')
    const found = (await lint(root, [], ['codex', 'copilot'])).filter((f) => f.code === 'harnesses-differ')
    expect(found).toHaveLength(1)
    expect(found[0]!.file).toBe(join(root, '.github/copilot-instructions.md'))
    expect(found[0]!.message).toContain(
      'copilot loads the text of .github/copilot-instructions.md, which codex does not see',
    )
  })

  it('reads the promised modes from .sysprompt/config', async () => {
    const root = await repo({
      'AGENTS.md': '# Shared\n',
      'CLAUDE.md': '# Claude only\n',
      '.sysprompt/config': 'modes: [codex, claude]\n',
    })
    const found = (await lint(root)).filter((f) => f.code === 'harnesses-differ')
    // Codex, named first, reads AGENTS.md; Claude Code reads CLAUDE.md instead, since one exists.
    expect(found.map((f) => f.file)).toEqual([join(root, 'AGENTS.md')])
    expect(found[0]!.message).toContain('codex loads the text of AGENTS.md, which claude does not see')
  })

  it('finds nothing in a repository whose conventions agree', async () => {
    const root = await repo({
      'src/a.ts': 'x\n',
      'AGENTS.md': '# Shared\n',
      '.cursor/rules/ts.mdc': '---\nglobs: src/**/*.ts\n---\nTypeScript.\n',
      '.github/instructions/ts.instructions.md': '---\napplyTo: "src/**/*.ts"\n---\nTypeScript.\n',
    })
    expect(await lint(root, ['src/a.ts'], ['codex', 'copilot'])).toEqual([
      expect.objectContaining({ code: 'harnesses-differ' }),
    ])
    expect(await lint(root, ['src/a.ts'])).toEqual([])
  })
})

describe('cross-convention rule lint: globs matched as each tool matches them', () => {
  it('finds no dead glob where the tool would match: Copilot’s any-case **/ prefix, Claude’s bare names', async () => {
    const root = await repo({
      'src/Web/b.TSX': 'x\n',
      'lib/deep/c.py': 'x\n',
      '.github/instructions/ui.instructions.md': '---\napplyTo: "src/**/*.{tsx,jsx},b.tsx"\n---\nUI.\n',
      '.claude/rules/py.md': '---\npaths: "*.py"\n---\nPython.\n',
      '.claude/rules/dead.md': '---\npaths: "docs/*.md"\n---\nDocs.\n',
    })
    const found = (await lint(root)).filter((f) => f.code === 'glob-matches-nothing')
    expect(found.map((f) => f.file)).toEqual([join(root, '.claude/rules/dead.md')])
  })
})
