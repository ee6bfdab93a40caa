import { describe, expect, it } from 'vitest'
import {
  compileTemplate,
  renderWithInsertions,
  type Template,
  TemplateError,
  type TemplateOptions,
  type TemplateValues,
} from './index.js'

// The exact words users read: each message says where, what and what to do
// (SPEC §2), and tools match on them, so they are pinned here whole.

function failure(source: string, values: TemplateValues = {}, options: TemplateOptions = {}): TemplateError {
  try {
    compileTemplate(source, options).render(values)
  } catch (error) {
    if (error instanceof TemplateError) return error
    throw error
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail`)
}

const MALFORMED_HINT =
  'is not a valid reference; write {{name}}, {{namespace:key}}, {{#if key}}, {{else}} or {{/if}}, with no spaces inside the braces'

describe('messages: parse-time problems, mustache dialect', () => {
  const cases: Array<[string, string, string]> = [
    ['{{ x }}', 'malformed-reference', `"{{ x }}" ${MALFORMED_HINT}`],
    // The message quotes the bad group alone, not the text before it.
    ['Hello {{ x }} there', 'malformed-reference', `"{{ x }}" ${MALFORMED_HINT}`],
    [
      '{{{x}}',
      'malformed-reference',
      '"{{" opens no complete {{…}} group while a "}}" follows; close the reference or remove the extra braces',
    ],
    [
      // The same past the start of the source: the span is just the two braces wherever it lies.
      'x {{{y}}',
      'malformed-reference',
      '"{{" opens no complete {{…}} group while a "}}" follows; close the reference or remove the extra braces',
    ],
    ['{{/if}}', 'stray-tag', '"{{/if}}" closes no open block; remove it or add {{#if key}} before it'],
    ['{{else}}', 'stray-tag', '"{{else}}" has no open block; remove it or add {{#if key}} before it'],
    [
      '{{#if a}}1{{else}}2{{else}}3{{/if}}',
      'stray-tag',
      'second "{{else}}" in one block; a block takes one {{else}}',
    ],
    ['{{#if a}}', 'unclosed-block', '"{{#if a}}" is never closed; add {{/if}}'],
    ['{{#if  !git:dirty}}', 'unclosed-block', '"{{#if !git:dirty}}" is never closed; add {{/if}}'],
  ]
  for (const [source, code, detail] of cases) {
    it(`${JSON.stringify(source)}: ${code}`, () => {
      const error = failure(source)
      expect(error.code).toBe(code)
      expect(error.detail).toBe(detail)
      expect(error.message).toBe(`template line 1, column ${error.column}: ${detail} [${code}]`)
      const lenient = compileTemplate(source, { strict: false })
      expect(lenient.diagnostics).toEqual([{ code, message: detail, line: 1, column: error.column }])
    })
  }

  it('the else of a block never closed is reported after the block', () => {
    const template = compileTemplate('{{#if a}}x{{else}}y', { strict: false })
    expect(template.diagnostics).toEqual([
      { code: 'unclosed-block', message: '"{{#if a}}" is never closed; add {{/if}}', line: 1, column: 1 },
      {
        code: 'stray-tag',
        message: '"{{else}}" belongs to a block that is never closed; add {{/if}}',
        line: 1,
        column: 11,
      },
    ])
  })

  it('strict mode reports the problem that comes first in the source, whatever its kind', () => {
    expect(failure('{{/if}} {{ x }}').code).toBe('stray-tag')
    expect(failure('{{ x }} {{/if}}').code).toBe('malformed-reference')
    expect(failure('{{ x }} {{#if a}}').code).toBe('malformed-reference')
    expect(failure('{{#if a}} {{ x }}').code).toBe('unclosed-block')
    const orphanFirst = compileTemplate('{{#if a}}{{else}}{{#if b}}{{else}}{{/if}} {{ x }}', {
      strict: false,
    })
    expect(orphanFirst.diagnostics.map((d) => [d.code, d.column])).toEqual([
      ['unclosed-block', 1],
      ['stray-tag', 10],
      ['malformed-reference', 43],
    ])
  })
})

describe('messages: parse-time problems, bracket dialect', () => {
  const cases: Array<[string, string, string, number]> = [
    ['x [endif]', 'stray-tag', '"[endif]" closes no open block; remove it or add [if key] before it', 3],
    ['[else]', 'stray-tag', '"[else]" has no open block; remove it or add [if key] before it', 1],
    [
      '[if a:b]1[else]2[else]3[endif]',
      'stray-tag',
      'second "[else]" in one block; a block takes one [else]',
      17,
    ],
    ['[if !a:b]', 'unclosed-block', '"[if !a:b]" is never closed; add [endif]', 1],
  ]
  for (const [source, code, detail, column] of cases) {
    it(`${JSON.stringify(source)}: ${code}`, () => {
      const error = failure(source, {}, { dialect: 'bracket', strict: true, name: 'b' })
      expect([error.code, error.detail, error.column]).toEqual([code, detail, column])
      expect(error.message).toBe(`template "b" line 1, column ${column}: ${detail} [${code}]`)
    })
  }

  it('an else whose block is never closed', () => {
    const template = compileTemplate('[if a:b]x[else]', { dialect: 'bracket' })
    expect(template.diagnostics.map((d) => d.message)).toEqual([
      '"[if a:b]" is never closed; add [endif]',
      '"[else]" belongs to a block that is never closed; add [endif]',
    ])
  })
})

describe('messages: render-time problems', () => {
  it('an unknown key names the keys that were given, sorted', () => {
    const error = failure('ab\n {{x}}', { zeta: '1', alpha: '2', Beta: '3' }, { name: 's' })
    expect(error.detail).toBe(
      'unknown variable "x"; known: Beta, alpha, zeta. Provide a value for it or fix the name',
    )
    expect(error.message).toBe(`template "s" line 2, column 2: ${error.detail} [unknown-variable]`)
    expect(error.known).toEqual(['Beta', 'alpha', 'zeta'])
  })

  it('an unknown key when nothing was given says so, for an object and a Map', () => {
    const detail = 'unknown variable "x"; known: (none). Provide a value for it or fix the name'
    expect(failure('{{x}}').detail).toBe(detail)
    expect(failure('{{x}}', new Map()).detail).toBe(detail)
    expect(
      failure(
        '{{x}}',
        new Map([
          ['b', 'v'],
          ['a', null],
        ]),
      ).known,
    ).toEqual(['a', 'b'])
  })

  it('a valueless insertion says how to fix it', () => {
    const error = failure('{{#if x}}{{/if}}{{x}}', { x: null })
    expect(error.message).toBe(
      'template line 1, column 17: variable "x" has no value here; give it a string, or guard the insertion with a conditional [valueless-variable]',
    )
    expect(error.known).toBeUndefined()
  })

  it('a value that is not a string names the key and its type', () => {
    expect(() => compileTemplate('{{x}}').render({ x: 1 as never })).toThrow(
      new TypeError('template value for "x" is number; values must be strings, null or undefined'),
    )
    expect(() =>
      compileTemplate('{{x}}', { strict: false }).render(new Map([['x', false as never]])),
    ).toThrow(new TypeError('template value for "x" is boolean; values must be strings, null or undefined'))
  })

  it('values that are neither a Map nor an object', () => {
    for (const values of [null, undefined, 'x', 1]) {
      expect(() => compileTemplate('{{x}}').render(values as never)).toThrow(
        new TypeError('template values must be a Map or a plain object'),
      )
    }
  })

  it('an object with a get method but no has method is read as a plain object', () => {
    const values = { x: 'own', get: () => 'from get' }
    expect(compileTemplate('{{x}}').render(values as never)).toBe('own')
  })
})

describe('messages: bad arguments', () => {
  it('compileTemplate names what it expected', () => {
    expect(() => compileTemplate(42 as never)).toThrow(
      new TypeError('compileTemplate: source must be a string'),
    )
    expect(() => compileTemplate('x', { dialect: 'jinja' as never })).toThrow(
      new TypeError('compileTemplate: unknown dialect "jinja"; use "mustache" or "bracket"'),
    )
  })

  it('renderWithInsertions takes only compiled templates', () => {
    const fake: Template = {
      source: '',
      dialect: 'mustache',
      strict: true,
      variables: [],
      diagnostics: [],
      render: () => '',
    }
    expect(() => renderWithInsertions(fake, {})).toThrow(
      new TypeError('renderWithInsertions: pass a template that compileTemplate returned'),
    )
  })
})

describe('messages: quoting source', () => {
  /** The quoted part of the message for a malformed group `{{ <fill> }}`. */
  function quoted(inside: string): string {
    const detail = failure(`{{${inside}}}`).detail
    return detail.slice(1, detail.indexOf(`" ${MALFORMED_HINT}`))
  }

  it('quotes a group of up to 60 characters whole, and cuts a longer one to 59 and an ellipsis', () => {
    const sixty = ` ${'x'.repeat(54)} ` // 60 with the braces
    expect(quoted(sixty)).toBe(`{{${sixty}}}`)
    const longer = `${sixty}y`
    expect(quoted(longer)).toBe(`${`{{${longer}}}`.slice(0, 59)}…`)
  })

  it('never cuts between the two halves of a surrogate pair', () => {
    // The character at index 58 of the group is the last one kept.
    const at58 = (c: string) => ` ${'x'.repeat(55)}${c}zzzz `
    expect(quoted(at58('😀'))).toBe(`{{ ${'x'.repeat(55)}…`)
    expect(quoted(at58('\ud800\udfff'))).toBe(`{{ ${'x'.repeat(55)}…`)
    expect(quoted(at58('\udbff\udc00'))).toBe(`{{ ${'x'.repeat(55)}…`)
    // Not high surrogates: kept.
    expect(quoted(at58('\ud7ff'))).toBe(`{{ ${'x'.repeat(55)}\ud7ff…`)
    expect(quoted(at58('\udc00'))).toBe(`{{ ${'x'.repeat(55)}\udc00…`)
  })

  it('writes each kind of line break as its escape', () => {
    expect(quoted(' a\rb\nc\u2028d\u2029e ')).toBe('{{ a\\rb\\nc\\u2028d\\u2029e }}')
    const error = failure('{{x}}', {}, { name: 'one\rtwo\nthree\u2028four\u2029' })
    expect(error.message).toBe(
      'template "one\\rtwo\\nthree\\u2028four\\u2029" line 1, column 1: unknown variable "x"; known: (none). Provide a value for it or fix the name [unknown-variable]',
    )
    expect(error.template).toBe('one\rtwo\nthree\u2028four\u2029')
  })
})

describe('messages: lenient mode lists at most 100 problems', () => {
  it('then one entry that counts the rest, at the 101st problem', () => {
    const source = `${'{{/if}}\n'.repeat(100)}{{ x }}\n{{/if}}{{/if}}`
    const diagnostics = compileTemplate(source, { strict: false }).diagnostics
    expect(diagnostics).toHaveLength(101)
    expect(diagnostics[99]).toMatchObject({ code: 'stray-tag', line: 100, column: 1 })
    expect(diagnostics[100]).toEqual({
      code: 'malformed-reference',
      message: '3 more problems not listed; fix the ones above first',
      line: 101,
      column: 1,
    })
  })

  it('lists exactly 100 problems without a count', () => {
    const diagnostics = compileTemplate('{{/if}}'.repeat(100), { strict: false }).diagnostics
    expect(diagnostics).toHaveLength(100)
    expect(diagnostics.every((d) => d.code === 'stray-tag')).toBe(true)
    expect(diagnostics[99]!.column).toBe(1 + 99 * 7)
  })

  it('counts one more problem', () => {
    const diagnostics = compileTemplate('{{/if}}'.repeat(101), { strict: false }).diagnostics
    expect(diagnostics).toHaveLength(101)
    expect(diagnostics[100]!.message).toBe('1 more problems not listed; fix the ones above first')
  })
})
