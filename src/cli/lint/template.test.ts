import { describe, expect, it } from 'vitest'
import { type KeyLookup, lintTemplate, unknownWhy } from './template.js'

const lookup: KeyLookup = (key) => {
  if (key === 'prompt:cwd') return { known: true, stability: 'session' }
  if (key === 'system:date') return { known: true, stability: 'turn' }
  return { known: false, why: 'nothing answers it' }
}

describe('lintTemplate', () => {
  it('places every finding at a line and column of the file, past its front matter', () => {
    const body = 'Hello [prompt:cwd]\n  [nope:x] on [system:date]\n[if prompt:cwd]open'
    const findings = lintTemplate({ file: 't.md', body, bodyLine: 4, dialect: 'bracket' }, lookup)
    expect(findings.map((f) => [f.line, f.column, f.severity, f.code])).toEqual([
      [6, 1, 'warning', 'unclosed-block'],
      [5, 3, 'error', 'unknown-variable'],
      [5, 15, 'warning', 'turn-in-system-prompt'],
    ])
    expect(findings.every((f) => f.file === 't.md')).toBe(true)
  })

  it('makes parse problems errors in the strict mustache dialect', () => {
    const findings = lintTemplate(
      { file: 'm.md', body: 'a\n{{ model }}', bodyLine: 1, dialect: 'mustache' },
      lookup,
    )
    expect(findings).toEqual([
      expect.objectContaining({ severity: 'error', code: 'malformed-reference', line: 2, column: 1 }),
    ])
  })

  it('leaves Markdown brackets alone in the bracket dialect', () => {
    expect(
      lintTemplate(
        { file: 'x.md', body: '- [x] done [todo] [docs](url)', bodyLine: 1, dialect: 'bracket' },
        lookup,
      ),
    ).toEqual([])
  })
})

describe('unknownWhy', () => {
  const keysOf = (ns: string) => (ns === 'git' ? ['git:branch', 'git:status'] : [])
  it('names the known namespaces, or the keys of a known one', () => {
    expect(unknownWhy('foo:bar', ['git', 'prompt'], keysOf)).toContain('(known: git, prompt)')
    expect(unknownWhy('git:brnch', ['git'], keysOf)).toContain('git:branch, git:status')
    expect(unknownWhy('model', ['git'], keysOf)).toContain('--set')
  })
})
