import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import type { InstructionMode } from '../discovery-options.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { globList, splitGlobs } from './convention.js'

afterAll(removeFixtures)

describe('splitGlobs', () => {
  it('splits on commas outside braces and brackets only', () => {
    expect(splitGlobs('**/*.{ts,tsx}')).toEqual(['**/*.{ts,tsx}'])
    expect(splitGlobs('src/**/*.{ts,tsx}, docs/*.md')).toEqual(['src/**/*.{ts,tsx}', ' docs/*.md'])
    expect(splitGlobs('a/[,x]/b,c')).toEqual(['a/[,x]/b', 'c'])
    expect(splitGlobs('{a,{b,c}},d')).toEqual(['{a,{b,c}}', 'd'])
    expect(splitGlobs('a\\,b,c')).toEqual(['a\\,b', 'c'])
  })

  it('keeps an unbalanced brace as one glob rather than guessing', () => {
    expect(splitGlobs('*.{ts,tsx')).toEqual(['*.{ts,tsx'])
  })

  it('loses no character: the parts joined by commas give the text back', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ',', '{', '}', '[', ']', '\\', '*') }), (text) => {
        expect(splitGlobs(text).join(',')).toBe(text)
      }),
    )
  })

  it('globList trims, drops empty pieces, and keeps the text whole when asked', () => {
    expect(globList(' **/*.{ts,tsx} , ,lib/** ')).toEqual(['**/*.{ts,tsx}', 'lib/**'])
    expect(globList('**/*.{ts,tsx}, lib/**', false)).toEqual(['**/*.{ts,tsx}, lib/**'])
    expect(globList(['**/*.{ts,tsx}', 7, ' '])).toEqual(['**/*.{ts,tsx}'])
  })
})

// A brace group in a rule's globs stays one pattern in every convention, and
// a file it names attaches the rule (`--path`); before, `**/*.{ts,tsx}` was
// cut at the comma into `**/*.{ts` and `tsx}`, which match nothing.
const RULES: [InstructionMode, string, string][] = [
  ['cursor', '.cursor/rules/ts.mdc', '---\nglobs: src/**/*.{ts,tsx}\n---\nTypeScript.\n'],
  [
    'copilot',
    '.github/instructions/ts.instructions.md',
    '---\napplyTo: "src/**/*.{ts,tsx}"\n---\nTypeScript.\n',
  ],
  ['windsurf', '.windsurf/rules/ts.md', '---\ntrigger: glob\nglobs: src/**/*.{ts,tsx}\n---\nTypeScript.\n'],
  [
    'kiro',
    '.kiro/steering/ts.md',
    '---\ninclusion: fileMatch\nfileMatchPattern: "src/**/*.{ts,tsx}"\n---\nTypeScript.\n',
  ],
  [
    'continue',
    '.continue/rules/ts.md',
    '---\nglobs: "src/**/*.{ts,tsx}"\nalwaysApply: false\n---\nTypeScript.\n',
  ],
  ['claude', '.claude/rules/ts.md', '---\npaths: "src/**/*.{ts,tsx}"\n---\nTypeScript.\n'],
]

describe.each(RULES)('%s mode with a brace glob', (mode, rule, text) => {
  it('keeps the group whole and attaches the rule to a file it names', async () => {
    const root = await fixtureTree({ '.git': { dir: true }, [rule]: text, 'src/app.tsx': 'x\n' })
    const home = await emptyHome()
    const found = await discoverInstructions({ cwd: root, home, mode })
    const entry = found.onDemand.find((f) => f.path === join(root, rule))
    expect(entry?.trigger).toMatchObject({ kind: 'matches', globs: ['src/**/*.{ts,tsx}'] })
    const attached = await discoverInstructions({
      cwd: root,
      home,
      mode,
      fsRoot: root,
      paths: ['src/app.tsx'],
    })
    expect(attached.lateBound.map((f) => f.path)).toContain(join(root, rule))
    expect(attached.onDemand.find((f) => f.path === join(root, rule))?.loadedFor).toEqual([
      join(root, 'src/app.tsx'),
    ])
  })
})
