import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../test/property-runs.test-helper.js'
import { discoverInstructions } from './discover.js'
import { fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { GLOB_LIMITS, globMatcher, globProblem } from './glob-walk.js'

afterAll(removeFixtures)

/** A home whose own opencode config lists `instructions`. */
function homeListing(instructions: string[]): Promise<string> {
  return fixtureTree({ '.config/opencode/opencode.json': JSON.stringify({ instructions }) })
}

/** `count` directories `d0000`…, each holding `notes.md` (and its own subdirectory, `sub/`). */
async function manyDirs(repo: string, count: number): Promise<void> {
  const names = Array.from({ length: count }, (_, i) => `d${String(i).padStart(4, '0')}`)
  for (let i = 0; i < names.length; i += 200)
    await Promise.all(
      names.slice(i, i + 200).map(async (name) => {
        await mkdir(join(repo, name, 'sub'), { recursive: true })
        await writeFile(join(repo, name, 'notes.md'), `${name}\n`)
      }),
    )
}

describe('glob bounds', () => {
  it('refuses globs past each bound, saying which', () => {
    expect(globProblem('docs/**/*.md')).toBeUndefined()
    expect(globProblem('packages/*/AGENTS.md')).toBeUndefined()
    expect(globProblem(`${'a'.repeat(GLOB_LIMITS.length)}.md`)).toMatch(/characters long; at most 256/)
    expect(globProblem('{a,b}'.repeat(9))).toMatch(/9 brace groups; at most 8/)
    expect(globProblem('**/a/**/b/**/c.md')).toMatch(/3 \*\* segments; at most 2/)
    expect(globProblem('*a*a*a.md')).toMatch(/3 \* in the segment \*a\*a\*a\.md/)
  })

  it('accepts or refuses any string without throwing, and accepted globs compile', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z*{},/.?!+@()[\]]{0,40}$/), (pattern) => {
        const problem = globProblem(pattern)
        if (problem === undefined) {
          expect(pattern.length).toBeLessThanOrEqual(GLOB_LIMITS.length)
          expect(pattern.split('/').filter((s) => s === '**').length).toBeLessThanOrEqual(2)
          expect(typeof globMatcher(pattern)('a/b.md')).toBe('boolean')
        }
      }),
      { numRuns: propertyRuns(300) },
    )
  })

  it('matches extglob syntax as text, as the Bun glob opencode uses does', () => {
    expect(globMatcher('+(a|aa).md')('aaa.md')).toBe(false)
    expect(globMatcher('*.md')('a.md')).toBe(true)
    expect(globMatcher('{a,b}.md')('b.md')).toBe(true)
  })
})

describe('opencode instructions globs, bounded and sharing one walk', () => {
  it('200 globs over 2 000 directories: every directory read once for all of them', async () => {
    const repo = await fixtureTree({ '.git': { dir: true } })
    await manyDirs(repo, 2000)
    const globs = Array.from({ length: 200 }, (_, i) => `**/nothing-${i}.md`)
    globs.push('d000*/notes.md')
    const found = await discoverInstructions({
      cwd: repo,
      home: await homeListing(globs),
      mode: 'opencode',
      harnessVersion: '1.1.34',
    })
    expect(found.files.map((f) => f.path)).toEqual(
      Array.from({ length: 10 }, (_, i) => join(repo, `d000${i}`, 'notes.md')),
    )
    // 1 + 2 000 + 2 000 directories: within the walk's bound, so no notice.
    expect(found.diagnostics).toEqual([])
  })

  it('stops the shared walk at its bound of directories, with one notice', async () => {
    const repo = await fixtureTree({ '.git': { dir: true } })
    await manyDirs(repo, GLOB_LIMITS.dirs / 2)
    const found = await discoverInstructions({
      cwd: repo,
      home: await homeListing(['**/a.md', '**/b.md', '**/notes.md']),
      mode: 'opencode',
      harnessVersion: '1.1.34',
      maxExpandedFiles: 10_000,
    })
    const notices = found.diagnostics.filter((d) => d.message.includes('directories, the most one discovery'))
    expect(notices).toHaveLength(1)
    // The root and 2 499 directories with their sub/ are read; the 2 500th is not.
    expect(found.files.length).toBeLessThan(GLOB_LIMITS.dirs / 2)
  })

  it('refuses a glob past the bounds and still matches the others', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'docs/a.md': 'A\n' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await homeListing(['**/x/**/y/**/*.md', 'docs/*.md']),
      mode: 'opencode',
      harnessVersion: '1.1.34',
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'docs/a.md')])
    expect(found.diagnostics.map((d) => [d.code, d.severity])).toEqual([['harness-config', 'warning']])
    expect(found.diagnostics[0]!.message).toContain('"**/x/**/y/**/*.md", has 3 ** segments; at most 2')
  })

  it('looks at most 32 levels below where a glob starts', async () => {
    const shallow = Array.from({ length: GLOB_LIMITS.depth }, () => 'd').join('/')
    const deep = Array.from({ length: GLOB_LIMITS.depth + 1 }, () => 'd').join('/')
    const repo = await fixtureTree({
      '.git': { dir: true },
      [`${shallow}/in.md`]: 'in\n',
      [`${deep}/out.md`]: 'out\n',
    })
    const found = await discoverInstructions({
      cwd: repo,
      home: await homeListing(['**/*.md']),
      mode: 'opencode',
      harnessVersion: '1.1.34',
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, shallow, 'in.md')])
  })
})
