import { beforeEach, describe, expect, it } from 'vitest'
import { clearTemplateCache, compileTemplate, TemplateError } from './index.js'

describe('compiled-template cache', () => {
  beforeEach(() => clearTemplateCache())

  it('returns the same object for the same source and options', () => {
    const a = compileTemplate('{{model}} in {{cwd}}', { dialect: 'mustache', strict: true, name: 's' })
    const b = compileTemplate('{{model}} in {{cwd}}', { dialect: 'mustache', strict: true, name: 's' })
    expect(b).toBe(a)
  })

  it('returns the same object when the options spell out the defaults', () => {
    expect(compileTemplate('{{x}}', { dialect: 'mustache', strict: true })).toBe(compileTemplate('{{x}}'))
    expect(compileTemplate('{{x}}', {})).toBe(compileTemplate('{{x}}'))
    expect(compileTemplate('[a:b]', { dialect: 'bracket', strict: false })).toBe(
      compileTemplate('[a:b]', { dialect: 'bracket' }),
    )
  })

  it('returns different objects for different sources', () => {
    expect(compileTemplate('{{a}}')).not.toBe(compileTemplate('{{b}}'))
  })

  it('returns different objects for a different dialect', () => {
    const mustache = compileTemplate('[a:b] {{a:b}}', { strict: false })
    const bracket = compileTemplate('[a:b] {{a:b}}', { dialect: 'bracket', strict: false })
    expect(bracket).not.toBe(mustache)
    expect(mustache.render({ 'a:b': 'X' })).toBe('[a:b] X')
    expect(bracket.render({ 'a:b': 'X' })).toBe('X {{a:b}}')
  })

  it('returns different objects for a different mode', () => {
    const strict = compileTemplate('{{x}}', { strict: true })
    const lenient = compileTemplate('{{x}}', { strict: false })
    expect(lenient).not.toBe(strict)
    expect(lenient.render({})).toBe('')
    expect(() => strict.render({})).toThrow(TemplateError)
  })

  it('returns different objects for a different name, each naming itself in errors', () => {
    const one = compileTemplate('{{x}}', { name: 'one' })
    const two = compileTemplate('{{x}}', { name: 'two' })
    const unnamed = compileTemplate('{{x}}')
    expect(two).not.toBe(one)
    expect(unnamed).not.toBe(one)
    expect(() => one.render({})).toThrow(expect.objectContaining({ template: 'one' }))
    expect(() => two.render({})).toThrow(expect.objectContaining({ template: 'two' }))
    expect(() => unnamed.render({})).toThrow(expect.objectContaining({ template: undefined }))
  })

  it('compiles afresh after the cache is cleared', () => {
    const before = compileTemplate('{{x}}')
    clearTemplateCache()
    const after = compileTemplate('{{x}}')
    expect(after).not.toBe(before)
    expect(after.render({ x: '1' })).toBe(before.render({ x: '1' }))
  })

  it('throws again for a template that failed to compile', () => {
    expect(() => compileTemplate('{{#if x}}')).toThrow(TemplateError)
    expect(() => compileTemplate('{{#if x}}')).toThrow(TemplateError)
    expect(compileTemplate('{{#if x}}', { strict: false }).diagnostics).toHaveLength(1)
  })

  it('keeps working when many templates go through it', () => {
    const first = compileTemplate('{{first}}')
    for (let i = 0; i < 2_000; i++) compileTemplate(`{{k${i}}}`)
    const again = compileTemplate('{{first}}')
    expect(again.render({ first: 'ok' })).toBe('ok')
    expect(first.render({ first: 'ok' })).toBe('ok')
  })

  it('is bounded: a template unused for many compiles is compiled again, a recent one is not', () => {
    const first = compileTemplate('{{first}}')
    for (let i = 0; i < 1_000; i++) compileTemplate(`{{k${i}}}`)
    const recent = compileTemplate('{{k999}}')
    expect(compileTemplate('{{k999}}')).toBe(recent)
    expect(compileTemplate('{{first}}')).not.toBe(first)
  })

  it('does not keep sources longer than V8 hashes in full', () => {
    const long = `${'x'.repeat(20_000)}{{a}}`
    expect(compileTemplate(long)).not.toBe(compileTemplate(long))
    const short = `${'x'.repeat(16_000)}{{a}}`
    expect(compileTemplate(short)).toBe(compileTemplate(short))
  })

  it('a cached template renders independently for each set of values', () => {
    const template = compileTemplate('{{#if a}}{{a}}{{else}}-{{/if}}')
    expect(template.render({ a: '1' })).toBe('1')
    expect(compileTemplate('{{#if a}}{{a}}{{else}}-{{/if}}').render({ a: null })).toBe('-')
    expect(template.render({ a: '2' })).toBe('2')
  })

  it('shares templates that cannot be changed: the template, its variables and its diagnostics are frozen', () => {
    const strict = compileTemplate('{{a}}{{b}}')
    const lenient = compileTemplate('{{/if}}{{a}}', { strict: false })
    for (const template of [strict, lenient]) {
      expect(Object.isFrozen(template)).toBe(true)
      expect(Object.isFrozen(template.variables)).toBe(true)
      expect(Object.isFrozen(template.diagnostics)).toBe(true)
    }
    expect(lenient.diagnostics).toHaveLength(1)
    expect(() => (lenient.diagnostics as unknown[]).push('x')).toThrow(TypeError)
  })

  it('keeps up to eight variants of one source (dialect, mode, name), and compiles a ninth each time', () => {
    const names = Array.from({ length: 9 }, (_, i) => `n${i}`)
    const first = names.map((name) => compileTemplate('{{x}}', { name }))
    const again = names.map((name) => compileTemplate('{{x}}', { name }))
    expect(again.slice(0, 8)).toEqual(first.slice(0, 8))
    for (let i = 0; i < 8; i++) expect(again[i]).toBe(first[i])
    expect(again[8]).not.toBe(first[8])
    expect(again[8]!.render({ x: 'ok' })).toBe('ok')
  })

  it('rejects an unknown dialect and a source that is not a string', () => {
    expect(() => compileTemplate('x', { dialect: 'jinja' as never })).toThrow(TypeError)
    expect(() => compileTemplate(42 as never)).toThrow(TypeError)
  })
})
