import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileTemplate, renderWithInsertions } from './compile-template.js'

describe('renderWithInsertions', () => {
  it('reports where each inserted value landed, skipping empty values and branches not taken', () => {
    const t = compileTemplate('A [file:a.md] B [if x:y][x:y][else]none[endif] [file:a.md]', {
      dialect: 'bracket',
    })
    const { text, insertions } = renderWithInsertions(t, { 'file:a.md': 'AAA', 'x:y': '' })
    expect(text).toBe('A AAA B  AAA')
    expect(insertions).toEqual([
      { key: 'file:a.md', start: 2, end: 5 },
      { key: 'file:a.md', start: 9, end: 12 },
    ])
  })

  it('gives the same text as render, and each span holds its value (property)', () => {
    const value = fc.string({ maxLength: 12 })
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant('{{a}}'), fc.constant('{{b}}'), fc.string({ maxLength: 8 })), {
          maxLength: 12,
        }),
        value,
        value,
        (pieces, a, b) => {
          const source = pieces.join('')
          let t: ReturnType<typeof compileTemplate>
          try {
            t = compileTemplate(source, { strict: false })
          } catch {
            return
          }
          const values = { a, b }
          const { text, insertions } = renderWithInsertions(t, values)
          expect(text).toBe(t.render(values))
          for (const ins of insertions) {
            expect(text.slice(ins.start, ins.end)).toBe(values[ins.key as 'a' | 'b'])
          }
        },
      ),
    )
  })

  it('refuses an object that is not a compiled template', () => {
    expect(() => renderWithInsertions({} as never, {})).toThrow(TypeError)
  })
})
