import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import type { InstructionMode } from '../discovery-options.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

/** The rules each mode attaches for `path`, in a tree holding one rule per convention. */
async function firing(mode: InstructionMode, files: Record<string, string>, path: string) {
  const root = await fixtureTree({ '.git': { dir: true }, ...files })
  const found = await discoverInstructions({
    cwd: root,
    home: await emptyHome(),
    mode,
    fsRoot: root,
    paths: [join(root, path)],
  })
  return {
    fired: found.lateBound.map((f) => f.path.slice(root.length + 1)),
    when: found.onDemand.map((f) => f.when),
    atStart: found.files.map((f) => f.path.slice(root.length + 1)),
  }
}

describe('each convention matches its globs as its tool does', () => {
  it('copilot: applyTo "*.ts" attaches for src/a.ts (VS Code puts **/ before it), in any case, shown as written', async () => {
    const rule = '.github/instructions/ts.instructions.md'
    const files = { [rule]: '---\napplyTo: "*.ts,src/**/*.{tsx,jsx}"\n---\nTypeScript.\n' }
    expect((await firing('copilot', files, 'src/a.ts')).fired).toEqual([rule])
    const upper = await firing('copilot', files, 'src/Web/B.TSX')
    expect(upper.fired).toEqual([rule])
    expect(upper.when).toEqual(['when the agent reads a file matching *.ts,src/**/*.{tsx,jsx}'])
  })

  it('claude: paths: "*.ts" attaches at any depth and "src" covers the files below it (gitignore, as Claude Code matches)', async () => {
    const files = {
      '.claude/rules/ts.md': '---\npaths: "*.ts"\n---\nTypeScript.\n',
      '.claude/rules/src.md': '---\npaths:\n  - src\n---\nSource.\n',
      '.claude/rules/all.md': '---\npaths: "**"\n---\nEverywhere.\n',
    }
    const found = await firing('claude', files, 'src/deep/a.ts')
    expect(found.fired.sort()).toEqual(['.claude/rules/src.md', '.claude/rules/ts.md'])
    // `**` alone is no condition: Claude Code loads the rule at start.
    expect(found.atStart).toEqual(['.claude/rules/all.md'])
  })

  it('continue: globs are minimatch on the whole text: no dot files, and a leading ! excludes', async () => {
    const files = {
      '.continue/rules/ts.md': '---\nglobs: ["**/*.ts", "!**/*.test.ts"]\n---\nTypeScript.\n',
    }
    expect((await firing('continue', files, 'src/a.ts')).fired).toEqual(['.continue/rules/ts.md'])
    expect((await firing('continue', files, 'src/a.test.ts')).fired).toEqual([])
    expect((await firing('continue', files, '.github/a.ts')).fired).toEqual([])
  })

  it('kiro: fileMatchPattern with braces attaches for either extension', async () => {
    const files = {
      '.kiro/steering/ts.md': '---\ninclusion: fileMatch\nfileMatchPattern: "src/**/*.{ts,tsx}"\n---\nTS.\n',
    }
    expect((await firing('kiro', files, 'src/x/a.tsx')).fired).toEqual(['.kiro/steering/ts.md'])
  })
})
