import { describe, expect, it } from 'vitest'
import { compileTemplate, TemplateError, type TemplateErrorCode, type TemplateValues } from './index.js'

/** Compiles and renders in the default mode (mustache, strict). */
function render(source: string, values: TemplateValues = {}): string {
  return compileTemplate(source).render(values)
}

/** The TemplateError that compiling or rendering `source` throws. */
function failure(source: string, values: TemplateValues = {}): TemplateError {
  try {
    render(source, values)
  } catch (error) {
    if (error instanceof TemplateError) return error
    throw error
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail in strict mode`)
}

/** Whether the failure happens at compile time (true) or only on render (false). */
function failsAtCompile(source: string): boolean {
  try {
    compileTemplate(source)
    return false
  } catch (error) {
    if (error instanceof TemplateError) return true
    throw error
  }
}

function expectFailure(source: string, code: TemplateErrorCode, values: TemplateValues = {}): TemplateError {
  const error = failure(source, values)
  expect(error.code).toBe(code)
  return error
}

describe('mustache dialect: defaults', () => {
  it('is the default dialect and is strict by default', () => {
    const template = compileTemplate('{{model}}')
    expect(template.dialect).toBe('mustache')
    expect(template.strict).toBe(true)
    expect(template.diagnostics).toEqual([])
    expect(template.source).toBe('{{model}}')
  })

  it('inserts plain and namespaced keys', () => {
    expect(
      render('{{model}} on {{git:branch}} reads {{file:docs/AGENTS.md}}', {
        model: 'm-1',
        'git:branch': 'main',
        'file:docs/AGENTS.md': 'rules',
      }),
    ).toBe('m-1 on main reads rules')
  })

  it('reads values from a Map as well as from a plain object', () => {
    const source = '{{#if a}}[{{a}}]{{else}}none{{/if}}'
    expect(render(source, new Map([['a', 'x']]))).toBe('[x]')
    expect(render(source, new Map([['a', null]]))).toBe('none')
    expect(render(source, new Map([['a', undefined]]))).toBe('none')
    expect(render(source, { a: 'x' })).toBe('[x]')
  })

  it('reads values from an object without a prototype', () => {
    const values: Record<string, string> = Object.create(null)
    values.model = 'm'
    expect(render('{{model}}', values)).toBe('m')
  })

  it('ignores values the template does not reference', () => {
    expect(render('plain', { unused: 'x', other: null })).toBe('plain')
  })

  it('treats the empty string as a present value', () => {
    expect(render('<{{x}}>', { x: '' })).toBe('<>')
    expect(render('{{#if x}}yes{{else}}no{{/if}}', { x: '' })).toBe('yes')
  })
})

describe('mustache dialect: conditionals', () => {
  it('shows or hides a body by presence', () => {
    const source = 'a{{#if x}}b{{/if}}c'
    expect(render(source, { x: 'v' })).toBe('abc')
    expect(render(source, { x: null })).toBe('ac')
  })

  it('negates with !', () => {
    const source = '{{#if !x}}none{{else}}got {{x}}{{/if}}'
    expect(render(source, { x: null })).toBe('none')
    expect(render(source, { x: 'v' })).toBe('got v')
  })

  it('accepts several spaces between if and the key', () => {
    expect(render('{{#if    x}}y{{/if}}', { x: 'v' })).toBe('y')
    expect(render('{{#if   !x}}y{{/if}}', { x: null })).toBe('y')
  })

  it('nests blocks and else branches', () => {
    const source = '{{#if a}}A{{#if b}}B{{else}}b{{/if}}{{else}}{{#if !b}}-{{/if}}{{/if}}'
    expect(render(source, { a: '1', b: '1' })).toBe('AB')
    expect(render(source, { a: '1', b: null })).toBe('Ab')
    expect(render(source, { a: null, b: null })).toBe('-')
    expect(render(source, { a: null, b: '1' })).toBe('')
  })

  it('tests namespaced keys', () => {
    expect(render('{{#if git:branch}}on {{git:branch}}{{/if}}', { 'git:branch': 'dev' })).toBe('on dev')
  })
})

describe('mustache strict: unknown keys', () => {
  it('rejects an inserted key that is not in the values', () => {
    const error = expectFailure('Hello {{nmae}}', 'unknown-variable', { name: 'x' })
    expect(error.column).toBe(7)
    expect(error.known).toEqual(['name'])
    expect(error.message).toContain('nmae')
  })

  it('compiles fine and fails only when rendered', () => {
    expect(failsAtCompile('{{nope}}')).toBe(false)
  })

  it('rejects an unknown key in a branch that is not taken', () => {
    expectFailure('{{#if on}}{{tpyo}}{{/if}}', 'unknown-variable', { on: null })
    expectFailure('{{#if on}}ok{{else}}{{tpyo}}{{/if}}', 'unknown-variable', { on: 'x' })
  })

  it('rejects an unknown key used only as a condition', () => {
    expectFailure('{{#if ghost}}x{{/if}}', 'unknown-variable')
    expectFailure('{{#if !ghost}}x{{/if}}', 'unknown-variable')
  })

  it('rejects an unknown key nested inside a false block', () => {
    expectFailure('{{#if a}}{{#if b}}{{c}}{{/if}}{{/if}}', 'unknown-variable', { a: null, b: null })
  })

  it('reports the first unknown key in source order', () => {
    const error = expectFailure('{{a}} {{zz}} {{yy}}', 'unknown-variable', { a: 'x' })
    expect(error.message).toContain('"zz"')
    expect(error.column).toBe(7)
  })

  it('does not find keys on the prototype chain', () => {
    for (const source of ['{{constructor}}', '{{#if constructor}}x{{/if}}', '{{#if !constructor}}x{{/if}}']) {
      const error = expectFailure(source, 'unknown-variable', {})
      expect(error.message).not.toContain('function')
    }
  })

  it('does not find inherited values of a derived object', () => {
    const values = Object.create({ model: 'inherited' }) as Record<string, string>
    expectFailure('{{model}}', 'unknown-variable', values)
  })

  it('does not take the prototype for a Map either', () => {
    expectFailure('{{constructor}}', 'unknown-variable', new Map())
  })

  it('finds a key named constructor when it is an own property', () => {
    expect(render('{{constructor}}', { constructor: 'own' })).toBe('own')
  })
})

describe('mustache strict: valueless keys', () => {
  it('rejects an insertion of null', () => {
    const error = expectFailure('model: {{model}}', 'valueless-variable', { model: null })
    expect(error.column).toBe(8)
    expect(error.message).toContain('model')
  })

  it('rejects an insertion of undefined, from an object or a Map', () => {
    expectFailure('{{model}}', 'valueless-variable', { model: undefined })
    expectFailure('{{model}}', 'valueless-variable', new Map([['model', undefined]]))
    expectFailure('{{model}}', 'valueless-variable', new Map([['model', null]]))
  })

  it('treats a valueless key as false in a condition', () => {
    expect(render('{{#if model}}{{model}}{{else}}no model{{/if}}', { model: null })).toBe('no model')
    expect(render('{{#if model}}{{model}}{{/if}}', { model: undefined })).toBe('')
  })

  it('does not reject a valueless insertion in a branch not taken', () => {
    expect(render('{{#if !cwd}}?{{else}}{{cwd}}{{/if}}', { cwd: null })).toBe('?')
  })

  it('rejects a valueless insertion that a negated block reaches', () => {
    expectFailure('{{#if !cwd}}{{cwd}}{{/if}}', 'valueless-variable', { cwd: null })
  })
})

describe('mustache strict: malformed references', () => {
  const malformedGroups = [
    '{{ model }}',
    '{{model }}',
    '{{ model}}',
    '{{}}',
    '{{ }}',
    '{{Model}}',
    '{{1model}}',
    '{{_model}}',
    '{{mo-del}}',
    '{{mo.del}}',
    '{{if}}',
    '{{endif}}',
    '{{else }}',
    '{{ else}}',
    '{{/if }}',
    '{{/ if}}',
    '{{#if}}',
    '{{#if }}',
    '{{#if x }}',
    '{{#if\tx}}',
    '{{#if\nx}}',
    '{{#ifx}}',
    '{{#if ! x}}',
    '{{#if !!x}}',
    '{{#if if}}',
    '{{#each items}}',
    '{{/each}}',
    '{{!comment}}',
    '{{>partial}}',
    '{{git:}}',
    '{{:branch}}',
    '{{git: branch}}',
    '{{Git:branch}}',
    '{{a\nb}}',
  ]
  for (const source of malformedGroups) {
    it(`rejects the group ${JSON.stringify(source)} when compiling`, () => {
      const error = expectFailure(`text ${source} text`, 'malformed-reference', { model: 'm', x: 'x' })
      expect([error.line, error.column]).toEqual([1, 6])
      expect(failsAtCompile(`text ${source} text`)).toBe(true)
    })
  }

  const unpaired = [
    '{{{model}}}',
    '{{a{b}}',
    '{{a}b}}',
    '{{{{model}}',
    '{{ model } and later }}',
    '{{ lone, then {{model}}',
    '{{\n\n}}}',
  ]
  for (const source of unpaired) {
    it(`rejects ${JSON.stringify(source)}: a {{ that opens no complete group while a }} follows`, () => {
      const error = expectFailure(source, 'malformed-reference', { model: 'm', a: 'a' })
      expect([error.line, error.column]).toEqual([1, 1])
    })
  }

  it('rejects a {{ whose }} comes lines later', () => {
    const error = expectFailure('use {{ here\nand a closing } later }}', 'malformed-reference')
    expect([error.line, error.column]).toEqual([1, 5])
  })
})

describe('mustache strict: a lone {{ is prose', () => {
  const prose = [
    '{{',
    'a {{ b',
    '{{{{{{',
    'json: {"a": {{"b": 1} }',
    '{{model}',
    '{{model} }',
    '}}{{',
    '}} then {{ model',
    'shell: echo $' + '{{X}',
  ]
  for (const source of prose) {
    it(`passes ${JSON.stringify(source)} through verbatim`, () => {
      const template = compileTemplate(source)
      expect(template.render({})).toBe(source)
      expect(template.variables).toEqual([])
    })
  }

  it('passes a trailing lone {{ through after a valid reference', () => {
    expect(render('{{model}} then {{ unfinished', { model: 'm' })).toBe('m then {{ unfinished')
  })

  it('passes a lone single brace or closing pair through', () => {
    expect(render('{ } }} {x} {model}', {})).toBe('{ } }} {x} {model}')
  })
})

describe('mustache strict: block structure', () => {
  it('rejects an unclosed block at its opening tag', () => {
    const error = expectFailure('ok\n{{#if x}}body', 'unclosed-block', { x: 'v' })
    expect([error.line, error.column]).toEqual([2, 1])
    expect(failsAtCompile('{{#if x}}body')).toBe(true)
  })

  it('rejects an outer block left open around a closed inner one', () => {
    const error = expectFailure('{{#if a}}{{#if b}}{{/if}}', 'unclosed-block', { a: 'v', b: 'v' })
    expect(error.column).toBe(1)
  })

  it('rejects a stray {{/if}}', () => {
    const error = expectFailure('a{{/if}}', 'stray-tag')
    expect(error.column).toBe(2)
  })

  it('rejects a stray {{else}}', () => {
    const error = expectFailure('a {{else}} b', 'stray-tag')
    expect(error.column).toBe(3)
  })

  it('rejects a {{/if}} after the block is already closed', () => {
    const error = expectFailure('{{#if x}}{{/if}}{{/if}}', 'stray-tag', { x: 'v' })
    expect(error.column).toBe(17)
  })

  it('rejects a second {{else}} in one block, pointing at the second', () => {
    const error = expectFailure('{{#if x}}1{{else}}2{{else}}3{{/if}}', 'stray-tag', { x: 'v' })
    expect(error.column).toBe(20)
  })

  it('allows one else per block at each nesting level', () => {
    const source = '{{#if a}}{{#if b}}1{{else}}2{{/if}}{{else}}3{{/if}}'
    expect(render(source, { a: 'v', b: null })).toBe('2')
    expect(render(source, { a: null, b: null })).toBe('3')
  })

  it('reports the earliest problem in the source', () => {
    const error = failure('{{/if}} {{ bad }} {{#if x}}')
    expect(error.code).toBe('stray-tag')
    const second = failure('{{ bad }} {{/if}}')
    expect(second.code).toBe('malformed-reference')
  })
})
