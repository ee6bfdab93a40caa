import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { globList, readRule } from './convention.js'

describe('readRule', () => {
  it('never throws, and keeps the body of a file without front matter whole', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const rule = readRule(text, 'rule.md')
        if (!text.replace(/^\uFEFF/, '').startsWith('---'))
          expect(rule.body).toBe(text.replace(/\r\n?/g, '\n'))
      }),
    )
  })

  it('reads Cursor-style front matter that YAML refuses (`globs: *.ts`) line by line', () => {
    const rule = readRule('---\nglobs: *.ts,*.tsx\nalwaysApply: true\n---\nBody.\n', 'r.mdc')
    expect(rule).toEqual({ data: { globs: '*.ts,*.tsx', alwaysApply: true }, body: 'Body.\n', yaml: false })
  })

  it('closes the front matter only at a line of its own: a value ending in --- stays a value', () => {
    expect(readRule('---\na: *---\n---\nbody\n', 'r.md')).toEqual({
      data: { a: '*---' },
      body: 'body\n',
      yaml: false,
    })
    expect(readRule('---\n---\nbody\n', 'r.md').body).toBe('body\n')
  })

  it('keeps YAML lists as lists, and the text "true" apart from the boolean', () => {
    const rule = readRule('---\napplyTo: ["a/**", "b/**"]\nalwaysApply: "true"\n---\nB\n', 'r.md')
    expect(rule.data).toEqual({ applyTo: ['a/**', 'b/**'], alwaysApply: 'true' })
    expect(rule.yaml).toBe(true)
  })

  it('finds every simple key of generated front matter, strict or lenient', () => {
    const key = fc
      .stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,8}$/)
      .filter(
        (k) =>
          ![
            'paths',
            'path',
            'excludes',
            'exclude',
            'models',
            'model',
            'order',
            'priority',
            'enabled',
            'description',
            'stability',
            'dynamic',
            'dialect',
            'id',
          ].includes(k.toLowerCase().replace(/s$/, '')) && !['id', 'ids'].includes(k.toLowerCase()),
      )
    const value = fc.stringMatching(/^[a-z*][a-z0-9*/.,-]{0,12}$/)
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 4 }), (pairs) => {
        const text = `---\n${pairs.map(([k, v]) => `${k}: ${v}`).join('\n')}\n---\nbody\n`
        const rule = readRule(text, 'r.md')
        for (const [k] of pairs) expect(Object.keys(rule.data)).toContain(k)
        expect(rule.body).toBe('body\n')
      }),
    )
  })
})

describe('globList', () => {
  it('gives trimmed, non-empty globs from a text or a list, nothing from anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string()), fc.integer(), fc.constant(null)), (value) => {
        const globs = globList(value)
        for (const glob of globs) {
          expect(glob).toBe(glob.trim())
          expect(glob.length).toBeGreaterThan(0)
        }
        if (typeof value !== 'string' && !Array.isArray(value)) expect(globs).toEqual([])
      }),
    )
  })
})
