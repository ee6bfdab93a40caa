import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type GlobSyntax, globsTest, patternTest, ruleGlobs, splitGlobs } from './globs.js'

const SYNTAXES: GlobSyntax[] = ['picomatch', 'vscode', 'minimatch', 'gitignore']

describe('globs: one engine, with each tool’s options', () => {
  it('Copilot (VS Code): any case, and a pattern not starting / or **/ matches at any depth', () => {
    expect(patternTest('vscode', '*.ts')('src/a.ts')).toBe(true)
    expect(patternTest('vscode', 'src/**/*.{tsx,jsx}')('src/Web/b.TSX')).toBe(true)
    expect(patternTest('vscode', 'src/**/*.ts')('packages/x/src/a.ts')).toBe(true)
    expect(patternTest('vscode', '/src/**/*.ts')('packages/x/src/a.ts')).toBe(false)
    expect(patternTest('vscode', '/src/**/*.ts')('src/a.ts')).toBe(true)
  })

  it('Continue and Kiro (minimatch): no dot files, case kept, a leading ! excludes, a text never split', () => {
    expect(patternTest('minimatch', '**/*.ts')('.github/a.ts')).toBe(false)
    expect(patternTest('minimatch', '**/*.ts')('src/A.TS')).toBe(false)
    expect(globsTest('minimatch', ['**/*.ts', '!**/*.test.ts'])('src/a.test.ts')).toBe(false)
    expect(globsTest('minimatch', ['**/*.ts', '!**/*.test.ts'])('src/a.ts')).toBe(true)
    expect(ruleGlobs('src/**,docs/**', 'minimatch').patterns).toEqual(['src/**,docs/**'])
  })

  it('Claude Code (gitignore): a bare name at any depth, a directory covers its files, the last match wins', () => {
    expect(patternTest('gitignore', '*.ts')('src/deep/a.ts')).toBe(true)
    expect(patternTest('gitignore', 'src')('src/deep/a.ts')).toBe(true)
    expect(patternTest('gitignore', 'src/**')('src/deep/a.ts')).toBe(true)
    expect(patternTest('gitignore', 'src/*.ts')('src/deep/a.ts')).toBe(false)
    expect(patternTest('gitignore', 'src/*.ts')('lib/src/a.ts')).toBe(false)
    expect(patternTest('gitignore', 'docs/')('docs')).toBe(false)
    expect(globsTest('gitignore', ['src/**', '!*.md'])('src/a.md')).toBe(false)
    expect(globsTest('gitignore', ['src/**', '!*.md', 'src/keep.md'])('src/keep.md')).toBe(true)
  })

  it('Cursor, Windsurf, Cline (picomatch): dot files included, a leading ./ dropped, case kept', () => {
    expect(patternTest('picomatch', './src/**')('src/.env.example')).toBe(true)
    expect(patternTest('picomatch', 'src/*.ts')('src/A.TS')).toBe(false)
  })

  it('a brace pattern matches what its expansion matches, in every syntax (property)', () => {
    const name = fc.stringMatching(/^[a-z]{1,3}$/)
    const path = fc
      .array(
        fc.oneof(
          name,
          name.map((n) => `${n}.${n}`),
          fc.constant('.d'),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((parts) => parts.join('/'))
    const shape = fc.tuple(
      fc.constantFrom('', 'src/', '**/', '*/', 'a/**/'),
      fc.array(name, { minLength: 2, maxLength: 3 }),
      fc.constantFrom('', '.ts', '/**'),
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...SYNTAXES),
        shape,
        fc.array(path, { minLength: 1, maxLength: 8 }),
        (syntax, [head, alts, tail], paths) => {
          const braced = globsTest(syntax, [`${head}{${alts.join(',')}}${tail}`])
          const expanded = globsTest(
            syntax,
            alts.map((a) => `${head}${a}${tail}`),
          )
          for (const p of paths) expect(braced(p), `${syntax} ${head}{${alts}}${tail} ${p}`).toBe(expanded(p))
        },
      ),
    )
  })

  it('shows the globs as written, and the shown text splits back into the same patterns (property)', () => {
    const piece = fc.stringMatching(/^[a-z*]{1,4}$/)
    const glob = fc
      .tuple(piece, fc.option(fc.array(piece, { minLength: 2, maxLength: 3 }), { nil: undefined }))
      .map(([p, alts]) => (alts === undefined ? p : `${p}.{${alts.join(',')}}`))
    const separator = fc.constantFrom(',', ', ', ' ,')
    fc.assert(
      fc.property(fc.array(fc.tuple(glob, separator), { minLength: 1, maxLength: 4 }), (parts) => {
        const text = parts.map(([g, s], i) => (i === 0 ? g : `${s}${g}`)).join('')
        for (const syntax of ['picomatch', 'vscode', 'gitignore'] as const) {
          const read = ruleGlobs(text, syntax)
          expect(read.written).toBe(text)
          expect(read.patterns).toEqual(parts.map(([g]) => g))
          expect(ruleGlobs(read.written, syntax).patterns).toEqual(read.patterns)
        }
        const list = ruleGlobs(
          parts.map(([g]) => g),
          'picomatch',
        )
        expect(splitGlobs(list.written).map((g) => g.trim())).toEqual(list.patterns)
      }),
    )
  })
})
