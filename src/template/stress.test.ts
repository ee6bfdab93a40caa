import { describe, expect, it } from 'vitest'
import { compileTemplate, TemplateError, type TemplateErrorCode } from './index.js'

// Sizes only; no timing is asserted (linearity is the benchmark's job, SPEC §2 "Cost").
const DEPTH = 100_000
const MEGA = 2 * 1024 * 1024
/** A cap against hangs only, generous for loaded CI machines; these tests assert no timing. */
const SLOW = { timeout: 120_000 }

describe('deep nesting renders without recursion', SLOW, () => {
  it(`renders ${DEPTH} nested [if] blocks`, () => {
    const source = `${'[if a:b]'.repeat(DEPTH)}core${'[endif]'.repeat(DEPTH)}`
    const template = compileTemplate(source, { dialect: 'bracket' })
    expect(template.diagnostics).toEqual([])
    expect(template.render({ 'a:b': 'v' })).toBe('core')
    expect(template.render({})).toBe('')
    const strict = compileTemplate(source, { dialect: 'bracket', strict: true })
    expect(strict.render({ 'a:b': 'v' })).toBe('core')
  })

  it(`renders ${DEPTH} nested [if]/[else] blocks down the else side`, () => {
    const source = `${'[if a:b]T[else]'.repeat(DEPTH)}core${'[endif]'.repeat(DEPTH)}`
    const template = compileTemplate(source, { dialect: 'bracket' })
    expect(template.render({ 'a:b': null })).toBe('core')
    expect(template.render({ 'a:b': 'v' })).toBe('T')
  })

  it(`renders ${DEPTH} nested {{#if}} blocks in strict mode`, () => {
    const source = `${'{{#if x}}'.repeat(DEPTH)}{{x}}${'{{/if}}'.repeat(DEPTH)}`
    const template = compileTemplate(source)
    expect(template.render({ x: 'deep' })).toBe('deep')
    expect(template.render({ x: null })).toBe('')
    expect(template.variables).toEqual(['x'])
  })

  it(`renders ${DEPTH} nested negated {{#if}} blocks with text at every level`, () => {
    const source = `${'{{#if !x}}<'.repeat(DEPTH)}${'>{{/if}}'.repeat(DEPTH)}`
    const template = compileTemplate(source)
    expect(template.render({ x: null })).toBe(`${'<'.repeat(DEPTH)}${'>'.repeat(DEPTH)}`)
    expect(template.render({ x: 'v' })).toBe('')
  })

  it(`keeps ${DEPTH} unclosed [if] tags as text`, () => {
    const source = '[if a:b]'.repeat(DEPTH)
    const template = compileTemplate(source, { dialect: 'bracket' })
    expect(template.render({ 'a:b': 'v' })).toBe(source)
    expect(template.variables).toEqual(['a:b'])
    expect(() => compileTemplate(source, { dialect: 'bracket', strict: true })).toThrow(TemplateError)
  })

  it(`keeps ${DEPTH} unclosed {{#if}} tags as text in lenient mode`, () => {
    const source = '{{#if x}}'.repeat(DEPTH)
    const template = compileTemplate(source, { strict: false })
    expect(template.render({})).toBe(source)
    expect(() => compileTemplate(source)).toThrow(
      expect.objectContaining({ code: 'unclosed-block', column: 1 }),
    )
  })
})

describe('megabytes of adversarial input compile without throwing', SLOW, () => {
  const bracketInputs: Array<[string, string]> = [
    ['[', '['.repeat(MEGA)],
    [']', ']'.repeat(MEGA)],
    ['[if x:y]', '[if x:y]'.repeat(MEGA / 8)],
    ['[endif]', '[endif]'.repeat(MEGA / 8)],
    ['[else]', '[else]'.repeat(MEGA / 8)],
    ['[a:b', '[a:b'.repeat(MEGA / 4)],
    ['[if ', '[if '.repeat(MEGA / 4)],
    ['[ then ]', `${'['.repeat(MEGA / 2)}${']'.repeat(MEGA / 2)}`],
    ['[if then spaces', `[if${' '.repeat(MEGA)}`],
    ['one long key', `[a:${'b'.repeat(MEGA)}]`],
  ]
  for (const [label, source] of bracketInputs) {
    it(`bracket dialect: ${label}`, () => {
      const template = compileTemplate(source, { dialect: 'bracket' })
      const out = template.render({})
      expect(out.length).toBeLessThanOrEqual(source.length)
      expect(template.diagnostics.length).toBeLessThanOrEqual(1_000)
    })
  }

  it('bracket dialect: text-only megabytes render to themselves', () => {
    for (const source of [
      '['.repeat(MEGA),
      ']'.repeat(MEGA),
      '[if x:y]'.repeat(MEGA / 8),
      '[endif]'.repeat(MEGA / 8),
    ]) {
      expect(compileTemplate(source, { dialect: 'bracket' }).render({ 'x:y': 'v' })).toBe(source)
    }
  })

  // Each input with what strict mode must do with it (SPEC §2): render it
  // (to itself, having no tag) or throw that code at line 1, column 1.
  const mustacheInputs: Array<[string, string, 'renders' | TemplateErrorCode]> = [
    ['{{', '{{'.repeat(MEGA / 2), 'renders'], // lone `{{` with no `}}` after: prose
    ['{{ then }}', `${'{{'.repeat(MEGA / 2)}}}`, 'malformed-reference'],
    ['{', '{'.repeat(MEGA), 'renders'],
    ['}}', '}}'.repeat(MEGA / 2), 'renders'],
    ['{{#if x}}', '{{#if x}}'.repeat(MEGA / 9), 'unclosed-block'],
    ['{{/if}}', '{{/if}}'.repeat(MEGA / 7), 'stray-tag'],
    ['{{a{', `${'{{a{'.repeat(MEGA / 4)}}}`, 'malformed-reference'],
    ['{{a}', `${'{{a}'.repeat(MEGA / 4)}}}`, 'malformed-reference'],
    ['{{ x }}', '{{ x }}'.repeat(MEGA / 7), 'malformed-reference'],
    ['{{#if then spaces', `{{#if${' '.repeat(MEGA)}x}}`, 'unclosed-block'],
    ['one long group', `{{${'a'.repeat(MEGA)}}}`, 'unknown-variable'],
  ]
  for (const [label, source, strict] of mustacheInputs) {
    it(`lenient mustache: ${label}`, () => {
      const template = compileTemplate(source, { strict: false })
      expect(template.render({}).length).toBeLessThanOrEqual(source.length)
      expect(template.diagnostics.length).toBeLessThanOrEqual(1_000)
    })

    it(`strict mustache: ${label} ${strict === 'renders' ? 'renders to itself' : `fails with ${strict}`}`, () => {
      const run = () => compileTemplate(source).render({ a: 'v', x: 'v' })
      if (strict === 'renders') {
        expect(run()).toBe(source)
        return
      }
      const error = (() => {
        try {
          run()
        } catch (thrown) {
          return thrown
        }
        return undefined
      })()
      expect(error).toBeInstanceOf(TemplateError)
      expect(error).toMatchObject({ code: strict, line: 1, column: 1 })
    })
  }

  it('strict mustache: megabytes of lone {{ are prose', () => {
    const source = `say ${'{{'.repeat(MEGA / 2)} done`
    expect(compileTemplate(source).render({})).toBe(source)
  })

  it('renders megabytes of insertions', () => {
    const source = '{{x}}'.repeat(MEGA / 5)
    expect(compileTemplate(source).render({ x: 'ab' })).toBe('ab'.repeat(MEGA / 5))
    const brackets = '[x:y]'.repeat(MEGA / 5)
    expect(compileTemplate(brackets, { dialect: 'bracket' }).render({ 'x:y': 'ab' })).toBe(
      'ab'.repeat(MEGA / 5),
    )
  })
})
