import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type Fragment, parseFragment } from '../shared/fragment.js'
import { loadFragments } from './fragments.js'
import { explainRule, selectRules } from './rules.js'

function rule(id: string, frontMatter = ''): Fragment {
  const { fragment, errors } = parseFragment(`---\n${frontMatter}\n---\n${id} body`, { file: `${id}.md`, id })
  expect(errors).toEqual([])
  return fragment!
}

const ids = (rules: Fragment[]) => rules.map((r) => r.id)

describe('selectRules', () => {
  const always = rule('always')
  const disabled = rule('disabled', 'enabled: false')
  const ts = rule('ts', 'paths: ["src/**/*.ts"]\nexcludes: ["src/generated/**"]')
  const docs = rule('docs', 'paths: ["docs/**", "*.md"]')

  it('always applies a rule without paths, never a disabled one', () => {
    expect(ids(selectRules([always, disabled], []))).toEqual(['always'])
    expect(ids(selectRules([always, disabled], ['src/a.ts']))).toEqual(['always'])
  })

  it('applies a rule when a working path matches a glob, keeping the order given', () => {
    expect(ids(selectRules([docs, ts, always], ['src/deep/a.ts']))).toEqual(['ts', 'always'])
    expect(ids(selectRules([docs, ts, always], ['README.md', 'src/a.ts']))).toEqual(['docs', 'ts', 'always'])
    expect(ids(selectRules([docs, ts], ['lib/a.ts', 'documents/a.txt']))).toEqual([])
  })

  it('skips a path matching an excludes glob, but another path can still select the rule', () => {
    expect(ids(selectRules([ts], ['src/generated/api.ts']))).toEqual([])
    expect(ids(selectRules([ts], ['src/generated/api.ts', 'src/app.ts']))).toEqual(['ts'])
  })

  it('matches dot files and dot directories', () => {
    expect(ids(selectRules([ts], ['src/.cache/x.ts']))).toEqual(['ts'])
    expect(ids(selectRules([rule('ci', 'paths: .github/**')], ['.github/workflows/ci.yml']))).toEqual(['ci'])
  })

  it('takes paths relative to the project root with / separators', () => {
    expect(ids(selectRules([ts], ['./src/a.ts']))).toEqual(['ts'])
    expect(ids(selectRules([ts], ['src\\win\\a.ts']))).toEqual(['ts'])
    expect(ids(selectRules([ts], ['/repo/src/a.ts'], { root: '/repo' }))).toEqual(['ts'])
    expect(ids(selectRules([rule('anchored', 'paths: ["./src/**", "/lib/**"]')], ['lib/x']))).toEqual([
      'anchored',
    ])
  })

  it('does not let a top-level glob match nested files', () => {
    expect(ids(selectRules([docs], ['src/notes.md']))).toEqual([])
  })

  it('never selects what it was not given, and keeps the rules that always apply', () => {
    const globs = fc.constantFrom('src/**', '**/*.ts', '*.md', 'docs/**', '.github/**', 'src/*.ts')
    const arbRule = fc
      .record({
        paths: fc.option(fc.array(globs, { minLength: 1, maxLength: 3 }), { nil: undefined }),
        excludes: fc.option(fc.array(globs, { maxLength: 2 }), { nil: undefined }),
        enabled: fc.option(fc.boolean(), { nil: undefined }),
      })
      .map((fields): Fragment => ({ ...rule('r'), ...fields }))
    const paths = fc.array(
      fc.constantFrom('src/a.ts', 'src/x/b.ts', 'README.md', 'docs/a.md', '.github/ci.yml'),
    )
    fc.assert(
      fc.property(fc.array(arbRule, { maxLength: 6 }), paths, (generated, working) => {
        const rules = generated.map((r, i) => ({ ...r, id: `r${i}` }))
        const selected = selectRules(rules, working)
        expect(selected.every((r) => rules.includes(r) && r.enabled !== false)).toBe(true)
        expect(selected.map((r) => rules.indexOf(r))).toEqual(
          [...selected.map((r) => rules.indexOf(r))].sort((a, b) => a - b),
        )
        for (const r of rules) {
          if (r.enabled !== false && r.paths === undefined) expect(selected).toContain(r)
          if (r.paths !== undefined && working.length === 0) expect(selected).not.toContain(r)
        }
      }),
    )
  })
})

describe('explainRule', () => {
  const ts = rule('ts', 'paths: ["src/**/*.ts"]\nexcludes: ["src/generated/**"]')

  it('says which path and glob decided', () => {
    expect(explainRule(ts, ['lib/a.ts', 'src/a.ts'])).toEqual({
      applies: true,
      reason: 'matched',
      path: 'src/a.ts',
      glob: 'src/**/*.ts',
    })
    expect(explainRule(ts, ['src/generated/a.ts'])).toEqual({
      applies: false,
      reason: 'excluded',
      path: 'src/generated/a.ts',
      glob: 'src/generated/**',
    })
    expect(explainRule(ts, ['lib/a.ts'])).toEqual({ applies: false, reason: 'no-match' })
    expect(explainRule(rule('a'), [])).toEqual({ applies: true, reason: 'always' })
    expect(explainRule(rule('d', 'enabled: false'), [])).toEqual({ applies: false, reason: 'disabled' })
  })
})

describe('rules loaded from .sysprompt/rules', () => {
  it('selects the loaded rule files that match the working context', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sysprompt-rules-'))
    try {
      await mkdir(join(root, '.sysprompt/rules'), { recursive: true })
      await writeFile(
        join(root, '.sysprompt/rules/tests.md'),
        '---\npaths: ["**/*.test.ts"]\n---\nUse vitest.',
      )
      await writeFile(join(root, '.sysprompt/rules/always.md'), 'Be brief.')
      await writeFile(join(root, '.sysprompt/rules/off.md'), '---\nenabled: false\n---\nOff.')
      const loaded = await loadFragments([join(root, '.sysprompt')])
      const rules = loaded.list.filter((f) => f.relPath.startsWith('rules/'))
      expect(ids(selectRules(rules, [join(root, 'src/a.test.ts')], { root }))).toEqual([
        'rules.always',
        'rules.tests',
      ])
      expect(ids(selectRules(rules, ['src/a.ts']))).toEqual(['rules.always'])
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
