import { describe, expect, it } from 'vitest'
import { compileTemplate, type Diagnostic, type TemplateValues } from './index.js'

function lenient(source: string, dialect: 'mustache' | 'bracket' = 'mustache') {
  return compileTemplate(source, { dialect, strict: false })
}

/** Diagnostics without their wording, which is free to change. */
function where(diagnostics: readonly Diagnostic[]): Array<[string, number, number]> {
  return diagnostics.map((d) => [d.code, d.line, d.column])
}

describe('lenient mustache: well-formed templates', () => {
  it('is asked for with strict: false', () => {
    const template = lenient('{{a}}')
    expect(template.strict).toBe(false)
    expect(template.dialect).toBe('mustache')
    expect(template.diagnostics).toEqual([])
  })

  it('renders unknown and valueless keys as the empty string', () => {
    const template = lenient('[{{gone}}|{{empty}}|{{set}}]')
    expect(template.render({ empty: null, set: 's' })).toBe('[||s]')
    expect(template.render(new Map([['empty', undefined]]))).toBe('[||]')
  })

  it('treats unknown and valueless keys as false in conditions', () => {
    const template = lenient('{{#if gone}}A{{else}}B{{/if}}{{#if !nul}}C{{/if}}')
    expect(template.render({ nul: null })).toBe('BC')
  })

  it('does not find keys on the prototype chain', () => {
    expect(lenient('<{{constructor}}>').render({})).toBe('<>')
    expect(lenient('{{#if constructor}}yes{{else}}no{{/if}}').render({})).toBe('no')
  })

  it('still throws a TypeError for a value that is not a string, null or undefined', () => {
    const values = { n: 7 } as unknown as TemplateValues
    expect(() => lenient('{{n}}').render(values)).toThrow(TypeError)
    expect(() => lenient('{{n}}').render(values)).toThrow(/"n"/)
  })

  it('throws that TypeError for a key in a branch not taken, as strict mode does', () => {
    const values = { off: null, n: 7 } as unknown as TemplateValues
    expect(() => lenient('{{#if off}}{{n}}{{/if}}').render(values)).toThrow(TypeError)
    expect(() =>
      lenient('[if a:off][a:n][endif]', 'bracket').render({ 'a:off': null, 'a:n': 7 } as never),
    ).toThrow(TypeError)
  })
})

describe('lenient mustache: offending tags stay verbatim', () => {
  it('keeps a malformed complete group whole', () => {
    const template = lenient('Hi {{ model }}, {{model}}!')
    expect(template.render({ model: 'M' })).toBe('Hi {{ model }}, M!')
    expect(where(template.diagnostics)).toEqual([['malformed-reference', 1, 4]])
    expect(template.variables).toEqual(['model'])
  })

  it('keeps an empty group whole', () => {
    const template = lenient('a{{}}b')
    expect(template.render({})).toBe('a{{}}b')
    expect(where(template.diagnostics)).toEqual([['malformed-reference', 1, 2]])
  })

  it('keeps a group spanning lines whole', () => {
    const template = lenient('x{{a\nb}}y')
    expect(template.render({ a: 'A', b: 'B' })).toBe('x{{a\nb}}y')
    expect(where(template.diagnostics)).toEqual([['malformed-reference', 1, 2]])
  })

  it('keeps triple braces verbatim: the unpaired {{ is two characters, and scanning resumes after them', () => {
    const template = lenient('{{{model}}}')
    expect(template.render({ model: 'M' })).toBe('{{{model}}}')
    expect(template.variables).toEqual([])
    expect(where(template.diagnostics)).toEqual([['malformed-reference', 1, 1]])
  })

  it('keeps a nested brace verbatim', () => {
    const template = lenient('{{a{b}}')
    expect(template.render({ a: 'A', b: 'B' })).toBe('{{a{b}}')
    expect(where(template.diagnostics)).toEqual([['malformed-reference', 1, 1]])
  })

  it('resumes scanning right after an unpaired {{, so a following pair can form a reference', () => {
    const template = lenient('{{{{model}}')
    expect(template.render({ model: 'M' })).toBe('{{M')
    expect(template.variables).toEqual(['model'])
    expect(where(template.diagnostics)).toEqual([['malformed-reference', 1, 1]])
  })

  it('keeps an unpaired {{ before a valid reference, and renders the reference', () => {
    const template = lenient('{{ x {{model}}')
    expect(template.render({ model: 'M' })).toBe('{{ x M')
    expect(where(template.diagnostics)).toEqual([['malformed-reference', 1, 1]])
  })

  it('reports nothing for a lone {{ with no }} after it', () => {
    const template = lenient('{{model}} {{ open')
    expect(template.render({ model: 'M' })).toBe('M {{ open')
    expect(template.diagnostics).toEqual([])
  })

  it('keeps an unclosed block and renders its contents as ordinary text', () => {
    const template = lenient('{{#if x}}hi {{y}}')
    expect(template.render({ x: null, y: 'Y' })).toBe('{{#if x}}hi Y')
    expect(template.render({ x: 'v', y: 'Y' })).toBe('{{#if x}}hi Y')
    expect(where(template.diagnostics)).toEqual([['unclosed-block', 1, 1]])
    expect(template.variables).toEqual(['x', 'y'])
  })

  it('keeps a negated unclosed block as written', () => {
    const template = lenient('{{#if   !x}}body')
    expect(template.render({})).toBe('{{#if   !x}}body')
    expect(template.variables).toEqual(['x'])
  })

  it('keeps the else of an unclosed block as written, reporting both', () => {
    const template = lenient('{{#if x}}A{{else}}B')
    expect(template.render({ x: 'v' })).toBe('{{#if x}}A{{else}}B')
    expect(template.render({ x: null })).toBe('{{#if x}}A{{else}}B')
    expect(where(template.diagnostics)).toEqual([
      ['unclosed-block', 1, 1],
      ['stray-tag', 1, 11],
    ])
  })

  it('keeps an outer unclosed block while the inner one closes', () => {
    const template = lenient('{{#if a}}<{{#if b}}B{{/if}}>')
    expect(template.render({ a: null, b: 'v' })).toBe('{{#if a}}<B>')
    expect(template.render({ a: 'v', b: null })).toBe('{{#if a}}<>')
    expect(where(template.diagnostics)).toEqual([['unclosed-block', 1, 1]])
  })

  it('keeps a stray {{/if}} and a stray {{else}}', () => {
    const template = lenient('a{{/if}}b{{else}}c')
    expect(template.render({})).toBe('a{{/if}}b{{else}}c')
    expect(where(template.diagnostics)).toEqual([
      ['stray-tag', 1, 2],
      ['stray-tag', 1, 10],
    ])
  })

  it('keeps a second {{else}} as text of the else branch', () => {
    const template = lenient('{{#if x}}1{{else}}2{{else}}3{{/if}}')
    expect(template.render({ x: 'v' })).toBe('1')
    expect(template.render({ x: null })).toBe('2{{else}}3')
    expect(where(template.diagnostics)).toEqual([['stray-tag', 1, 20]])
  })

  it('lists several problems in source order with their lines and columns', () => {
    const source = 'one {{/if}}\r\ntwo {{ bad }}\nthree\r  {{#if x}} {{x}}'
    const template = lenient(source)
    expect(template.render({ x: 'X' })).toBe('one {{/if}}\r\ntwo {{ bad }}\nthree\r  {{#if x}} X')
    expect(where(template.diagnostics)).toEqual([
      ['stray-tag', 1, 5],
      ['malformed-reference', 2, 5],
      ['unclosed-block', 4, 3],
    ])
  })

  it('gives each diagnostic exactly code, message, line and column, the message on one line', () => {
    const template = lenient('{{ a\nb }} {{/if}} {{#if z}}')
    expect(template.diagnostics.length).toBe(3)
    for (const diagnostic of template.diagnostics) {
      expect(Object.keys(diagnostic).sort()).toEqual(['code', 'column', 'line', 'message'])
      expect(diagnostic.message.length).toBeGreaterThan(0)
      expect(diagnostic.message).not.toMatch(/[\r\n\u2028\u2029]/)
    }
  })

  it('reports what strict mode rejects, and nothing else', () => {
    const cases: Array<[string, string | null]> = [
      ['{{ model }}', 'malformed-reference'],
      ['{{{model}}}', 'malformed-reference'],
      ['{{#if x}}', 'unclosed-block'],
      ['{{/if}}', 'stray-tag'],
      ['{{else}}', 'stray-tag'],
      ['{{ lone', null],
      ['{{model}}', null],
      ['{{#if x}}{{/if}}', null],
    ]
    for (const [source, code] of cases) {
      const diagnostics = lenient(source).diagnostics
      expect(diagnostics.map((d) => d.code)).toEqual(code === null ? [] : [code])
      let strictCode: string | null = null
      try {
        compileTemplate(source, { strict: true })
      } catch (error) {
        strictCode = (error as { code: string }).code
      }
      expect(strictCode).toBe(code)
    }
  })

  it('lists many problems without losing the first ones', () => {
    const source = '{{/if}}\n'.repeat(150)
    const template = lenient(source)
    expect(template.render({})).toBe(source)
    expect(template.diagnostics.length).toBeGreaterThanOrEqual(100)
    expect(template.diagnostics.length).toBeLessThanOrEqual(150)
    for (let i = 0; i < 100; i++) {
      expect(where([template.diagnostics[i]!])).toEqual([['stray-tag', i + 1, 1]])
    }
  })
})

describe('lenient bracket', () => {
  it('keeps unmatched and stray tags as text and reports them', () => {
    const template = lenient('[endif]\n[if a:x]A[else]B[else]C[endif]\n[else] [if b:y]', 'bracket')
    expect(template.render({ 'a:x': null })).toBe('[endif]\nB[else]C\n[else] [if b:y]')
    expect(where(template.diagnostics)).toEqual([
      ['stray-tag', 1, 1],
      ['stray-tag', 2, 17],
      ['stray-tag', 3, 1],
      ['unclosed-block', 3, 8],
    ])
    expect(template.variables).toEqual(['a:x', 'b:y'])
  })

  it('does not report brackets that are not tags', () => {
    expect(lenient('[not a tag] [x] [ ] [docs](u) [x', 'bracket').diagnostics).toEqual([])
  })

  it('is the default mode of the bracket dialect', () => {
    const template = compileTemplate('[if a:x]open', { dialect: 'bracket' })
    expect(template.strict).toBe(false)
    expect(where(template.diagnostics)).toEqual([['unclosed-block', 1, 1]])
  })
})
