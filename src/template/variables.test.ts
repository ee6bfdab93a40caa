import { describe, expect, it } from 'vitest'
import { compileTemplate, type TemplateOptions } from './index.js'

function variables(source: string, options: TemplateOptions = {}): readonly string[] {
  return compileTemplate(source, options).variables
}

const lenientMustache = { strict: false } as const
const bracket = { dialect: 'bracket' } as const

describe('variables: mustache', () => {
  it('lists inserted keys in order of first appearance', () => {
    expect(variables('{{b}} {{a}} {{c}}')).toEqual(['b', 'a', 'c'])
  })

  it('lists each key once', () => {
    expect(variables('{{a}}{{b}}{{a}}{{b}}{{a}}')).toEqual(['a', 'b'])
  })

  it('lists condition keys, without the negation mark', () => {
    expect(variables('{{#if !x}}{{/if}}{{#if y}}{{/if}}')).toEqual(['x', 'y'])
  })

  it('orders a condition key before the keys of its body', () => {
    expect(variables('{{#if cond}}{{inner}}{{else}}{{other}}{{/if}}{{last}}')).toEqual([
      'cond',
      'inner',
      'other',
      'last',
    ])
  })

  it('lists a key tested and inserted once', () => {
    expect(variables('{{#if a}}{{a}}{{/if}}')).toEqual(['a'])
  })

  it('mixes plain and namespaced keys', () => {
    expect(variables('{{model}} {{git:branch}} {{file:docs/A.md}} {{model}}')).toEqual([
      'model',
      'git:branch',
      'file:docs/A.md',
    ])
  })

  it('is empty for text without references', () => {
    expect(variables('')).toEqual([])
    expect(variables('no references at all { } [x]')).toEqual([])
    expect(variables('a lone {{ stays prose')).toEqual([])
  })

  it('is the same in strict and lenient mode for a well-formed template', () => {
    const source = '{{#if a}}{{b}}{{else}}{{c}}{{/if}}'
    expect(variables(source)).toEqual(variables(source, lenientMustache))
  })

  it('includes the keys of unclosed blocks', () => {
    expect(variables('{{#if open}}{{body}}', lenientMustache)).toEqual(['open', 'body'])
    expect(variables('{{#if a}}{{#if b}}{{/if}}', lenientMustache)).toEqual(['a', 'b'])
  })

  it('excludes the insides of malformed groups', () => {
    expect(variables('{{ spaced }} {{{triple}}} {{a{b}} {{ok}}', lenientMustache)).toEqual(['ok'])
  })

  it('ignores bracket tags', () => {
    expect(variables('[git:branch] [if a:b][endif]')).toEqual([])
  })
})

describe('variables: bracket', () => {
  it('lists namespaced keys of insertions and conditions in order', () => {
    expect(variables('[if !git:branch][prompt:cwd][endif][git:branch][system:os]', bracket)).toEqual([
      'git:branch',
      'prompt:cwd',
      'system:os',
    ])
  })

  it('includes the keys of unmatched if tags', () => {
    expect(variables('[if file:A][if file:B]x[endif]', bracket)).toEqual(['file:A', 'file:B'])
  })

  it('ignores plain names and other bracketed text', () => {
    expect(variables('[model] [x] [ ] [todo] [docs](u) [if model] {{model}}', bracket)).toEqual([])
  })

  it('is the same in strict mode for a well-formed template', () => {
    const source = '[if a:x][b:y][else][c:z][endif]'
    expect(variables(source, { dialect: 'bracket', strict: true })).toEqual(variables(source, bracket))
  })
})
