import { describe, expect, it } from 'vitest'
import { compileTemplate, TemplateError, type TemplateValues } from './index.js'

/** Compiles and renders in the default mode (mustache, strict). */
function render(source: string, values: TemplateValues = {}): string {
  return compileTemplate(source).render(values)
}

describe('mustache strict: value types', () => {
  const wrong: Array<[string, unknown]> = [
    ['number', 42],
    ['boolean', true],
    ['object', { toString: () => 'x' }],
    ['array', ['x']],
    ['function', () => 'x'],
    ['bigint', 1n],
    ['symbol', Symbol('x')],
  ]
  for (const [label, value] of wrong) {
    it(`throws a TypeError naming the key for a ${label} value`, () => {
      const values = { count: value } as unknown as TemplateValues
      expect(() => render('n={{count}}', values)).toThrow(TypeError)
      expect(() => render('n={{count}}', values)).toThrow(/count/)
      expect(() => render('{{#if count}}x{{/if}}', values)).toThrow(TypeError)
      expect(() => render('{{#if count}}x{{/if}}', new Map([['count', value]]) as TemplateValues)).toThrow(
        /count/,
      )
    })
  }

  it('throws the TypeError even for a key in a branch not taken', () => {
    const values = { off: null, count: 3 } as unknown as TemplateValues
    expect(() => render('{{#if off}}{{count}}{{/if}}', values)).toThrow(TypeError)
  })

  it('throws a TypeError, not a TemplateError', () => {
    let caught: unknown
    try {
      render('{{n}}', { n: 1 } as unknown as TemplateValues)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(TypeError)
    expect(caught).not.toBeInstanceOf(TemplateError)
  })

  it('reads values as a Map only when they have both get and has; otherwise by their own keys', () => {
    // An object with a `has` helper but no `get` is a record of its own keys.
    const withHelper = { model: 'm', has: (key: string) => key === 'model' } as unknown as TemplateValues
    expect(render('{{model}}', withHelper)).toBe('m')
    // A Set has `has` but no `get`: none of its members is a value.
    expect(() => render('{{model}}', new Set(['model']) as unknown as TemplateValues)).toThrow(
      expect.objectContaining({ code: 'unknown-variable' }),
    )
  })

  it('rejects values that are not a Map or an object', () => {
    const template = compileTemplate('x')
    expect(() => template.render(null as unknown as TemplateValues)).toThrow(TypeError)
    expect(() => template.render('model' as unknown as TemplateValues)).toThrow(TypeError)
  })
})

describe('mustache strict: substituted values are never scanned again', () => {
  it('inserts values holding reference syntax verbatim', () => {
    const values = { a: '{{b}}', b: 'B' }
    expect(render('{{a}}|{{b}}', values)).toBe('{{b}}|B')
  })

  it('inserts values that would be malformed or unknown as text', () => {
    for (const value of [
      '{{ model }}',
      '{{',
      '}}',
      '{{{x}}}',
      '{{#if a}}',
      '{{/if}}',
      '{{else}}',
      '{{nobody}}',
    ]) {
      expect(render('<{{v}}>', { v: value })).toBe(`<${value}>`)
    }
  })

  it('does not join a value with the template text around it', () => {
    expect(render('{{open}}x}}', { open: '{{', x: 'X' })).toBe('{{x}}')
    expect(render('{{open}}{{name}}{{close}}', { open: '{{', name: 'x', close: '}}', x: 'X' })).toBe('{{x}}')
  })
})
