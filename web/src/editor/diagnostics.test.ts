import { Text } from '@codemirror/state'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileTemplate } from '../../../src/template/index.js'
import type { Dialect } from '../api-types.js'
import { offsetOf, toLint } from './diagnostics.js'

const doc = (s: string) => Text.of(s.split('\n'))

describe('offsetOf', () => {
  it('maps a 1-based line and column to the offset, clamped into the document', () => {
    const d = doc('ab\ncdef\n')
    expect(offsetOf(d, 1, 1)).toBe(0)
    expect(offsetOf(d, 2, 3)).toBe(5)
    expect(offsetOf(d, 2, 99)).toBe(7)
    expect(offsetOf(d, 99, 1)).toBe(8)
    expect(offsetOf(d, 0, 0)).toBe(0)
  })
})

describe('toLint', () => {
  it('marks each diagnostic from its tag’s opening to the tag’s end', () => {
    const source = 'Hello\n  [if prompt:cwd]\nand [endif] [endif]'
    const d = doc(source)
    const diagnostics = compileTemplate(source, { dialect: 'bracket', strict: false }).diagnostics
    const marks = toLint(d, diagnostics, 'bracket')
    expect(marks.map((m) => source.slice(m.from, m.to))).toEqual(['[endif]'])
    expect(marks[0]!.message).toContain('stray-tag')
  })

  it('puts every diagnostic of any template on the `{{` or `[` it reports', () => {
    const piece = fc.constantFrom(
      'text ',
      '\n',
      '{{a}}',
      '{{#if a}}',
      '{{else}}',
      '{{/if}}',
      '{{ bad }}',
      '{{',
      '}}',
      '[if x:y]',
      '[else]',
      '[endif]',
      '[x:y]',
      '[todo]',
      '😀',
    )
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }),
        fc.constantFrom<Dialect>('bracket', 'mustache'),
        (parts, dialect) => {
          const source = parts.join('')
          const diagnostics = compileTemplate(source, { dialect, strict: false }).diagnostics
          const marks = toLint(doc(source), diagnostics, dialect)
          expect(marks).toHaveLength(diagnostics.length)
          for (const m of marks) {
            const opening = source.slice(m.from, m.from + (dialect === 'bracket' ? 1 : 2))
            expect(opening).toBe(dialect === 'bracket' ? '[' : '{{')
            expect(m.to).toBeGreaterThan(m.from)
          }
        },
      ),
    )
  })
})
