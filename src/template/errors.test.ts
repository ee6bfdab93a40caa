import { describe, expect, it } from 'vitest'
import { compileTemplate, TemplateError, type TemplateOptions, type TemplateValues } from './index.js'

function failure(source: string, values: TemplateValues = {}, options: TemplateOptions = {}): TemplateError {
  try {
    compileTemplate(source, options).render(values)
  } catch (error) {
    if (error instanceof TemplateError) return error
    throw error
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail`)
}

function position(error: TemplateError): [number, number] {
  return [error.line, error.column]
}

const LINE_BREAK = /[\r\n\u2028\u2029]/

describe('TemplateError: shape', () => {
  it('is an Error with a name, a code and a stack', () => {
    const error = failure('{{x}}')
    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(TemplateError)
    expect(error.name).toBe('TemplateError')
    expect(error.code).toBe('unknown-variable')
    expect(typeof error.stack).toBe('string')
  })

  it('carries each of the five codes', () => {
    expect(failure('{{x}}').code).toBe('unknown-variable')
    expect(failure('{{x}}', { x: null }).code).toBe('valueless-variable')
    expect(failure('{{ x }}').code).toBe('malformed-reference')
    expect(failure('{{#if x}}').code).toBe('unclosed-block')
    expect(failure('{{/if}}').code).toBe('stray-tag')
  })

  it('keeps the cause it is constructed with, for code that wraps another failure in one', () => {
    const inner = new RangeError('value getter failed')
    const error = new TemplateError({
      code: 'valueless-variable',
      template: 'intro',
      detail: 'no value',
      line: 2,
      column: 5,
      cause: inner,
    })
    expect(error.cause).toBe(inner)
    expect(error.message).toBe('template "intro" line 2, column 5: no value [valueless-variable]')
  })
})

describe('TemplateError: line and column', () => {
  it('is 1-based at the opening braces of the tag', () => {
    expect(position(failure('{{x}}'))).toEqual([1, 1])
    expect(position(failure('abc {{x}}'))).toEqual([1, 5])
  })

  it('counts \\n, \\r\\n and a lone \\r as one line end each', () => {
    expect(position(failure('a\nb\n  {{x}}'))).toEqual([3, 3])
    expect(position(failure('a\r\nb\r\n  {{x}}'))).toEqual([3, 3])
    expect(position(failure('a\rb\r  {{x}}'))).toEqual([3, 3])
    expect(position(failure('a\r\n\r\n\n\r{{x}}'))).toEqual([5, 1])
    expect(position(failure('\n\r{{x}}'))).toEqual([3, 1])
  })

  it('does not treat other separators as line ends', () => {
    expect(position(failure('a\u2028b\u0085c\fd\ve{{x}}'))).toEqual([1, 10])
  })

  it('counts columns in UTF-16 code units', () => {
    // The emoji is two code units, é one, a tab one.
    expect(position(failure('😀é\t{{x}}'))).toEqual([1, 5])
    expect(position(failure('line\n𝒳𝒴 {{x}}'))).toEqual([2, 6])
  })

  it('points at the first appearance of an unknown key', () => {
    const error = failure('{{a}}\n  {{#if b}}{{b}}{{/if}} {{b}}', { a: 'x' })
    expect(error.code).toBe('unknown-variable')
    expect(position(error)).toEqual([2, 3])
  })

  it('points at the insertion that has no value', () => {
    const error = failure('{{#if b}}{{a}}{{/if}}\r\n{{a}}', { a: null, b: null })
    expect(error.code).toBe('valueless-variable')
    expect(position(error)).toEqual([2, 1])
  })

  it('points at the [ of a bracket tag', () => {
    const options = { dialect: 'bracket', strict: true } as const
    expect(position(failure('x\n  [if a:b]', {}, options))).toEqual([2, 3])
    expect(position(failure('x\r\n[endif]', {}, options))).toEqual([2, 1])
    expect(position(failure('\r\r- [ ] [typo:x]', {}, options))).toEqual([3, 7])
  })

  it('points at the start of a malformed group or an unpaired {{', () => {
    expect(position(failure('ok\n\tsee {{ x }}'))).toEqual([2, 6])
    expect(position(failure('ok\n{{{x}}}'))).toEqual([2, 1])
  })
})

describe('TemplateError: template name', () => {
  it('is undefined for an unnamed template', () => {
    const error = failure('{{x}}')
    expect(error.template).toBeUndefined()
  })

  it('is the name given when compiling, for parse-time and render-time errors', () => {
    expect(failure('{{ x }}', {}, { name: 'persona.md' }).template).toBe('persona.md')
    expect(failure('{{x}}', {}, { name: 'persona.md' }).template).toBe('persona.md')
    expect(failure('{{x}}', { x: null }, { name: 'tools' }).template).toBe('tools')
  })

  it('is named in the message', () => {
    expect(failure('{{x}}', {}, { name: 'section-one' }).message).toContain('section-one')
  })
})

describe('TemplateError: known keys', () => {
  it('lists the provided keys in code-unit order for an unknown key', () => {
    const values = new Map<string, string | null>([
      ['zeta', 'z'],
      ['alpha', 'a'],
      ['git:branch', 'b'],
      ['Beta', 'B'],
      ['émile', 'e'],
      ['alpha2', null],
      ['Z', '1'],
    ])
    const error = failure('{{missing}}', values)
    expect(error.known).toEqual(['Beta', 'Z', 'alpha', 'alpha2', 'git:branch', 'zeta', 'émile'])
  })

  it('lists own keys of a plain object', () => {
    const values = Object.assign(Object.create({ inherited: 'x' }), { b: 'b', a: null })
    expect(failure('{{c}}', values).known).toEqual(['a', 'b'])
  })

  it('is an empty list when nothing was provided', () => {
    expect(failure('{{c}}', {}).known).toEqual([])
  })

  it('is absent for the other codes', () => {
    expect(failure('{{x}}', { x: null }).known).toBeUndefined()
    expect(failure('{{ x }}').known).toBeUndefined()
    expect(failure('{{/if}}').known).toBeUndefined()
  })

  it('names the unknown key and the known ones in the message', () => {
    const error = failure('{{modle}}', { model: 'm', cwd: '/' })
    expect(error.message).toContain('modle')
    expect(error.message).toContain('cwd')
    expect(error.message).toContain('model')
  })
})

describe('TemplateError: message', () => {
  it('names the template, line, column and code in one line', () => {
    const error = failure('intro\n\n   {{#if x}}', {}, { name: 'greeting' })
    expect(error.message).toContain('greeting')
    expect(error.message).toContain('3')
    expect(error.message).toContain('4')
    expect(error.message).toContain('unclosed-block')
    expect(error.message).not.toMatch(LINE_BREAK)
  })

  it('stays on one line when the offending group spans lines', () => {
    const error = failure('{{ first\nsecond\r\nthird }}')
    expect(error.code).toBe('malformed-reference')
    expect(error.message).not.toMatch(LINE_BREAK)
  })

  it('stays on one line when a known key or the name holds a line break', () => {
    expect(failure('{{x}}', { 'a\nb': 'v', 'c\u2028d': 'w' }).message).not.toMatch(LINE_BREAK)
    expect(failure('{{x}}', {}, { name: 'two\nlines' }).message).not.toMatch(LINE_BREAK)
  })

  it('stays on one line for every code', () => {
    const errors = [
      failure('a\n{{x}}', { y: 'y' }),
      failure('a\n{{x}}', { x: null }),
      failure('a\n{{ x\n }}'),
      failure('a\n{{#if x}}\n'),
      failure('a\n{{else}}\n'),
    ]
    for (const error of errors) expect(error.message).not.toMatch(LINE_BREAK)
  })

  it('does not repeat a huge malformed group in full', () => {
    const error = failure(`{{ ${'x'.repeat(100_000)} }}`)
    expect(error.code).toBe('malformed-reference')
    expect(error.message.length).toBeLessThan(1_000)
  })
})
