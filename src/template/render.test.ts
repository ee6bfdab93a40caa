import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { compileTemplate, renderWithInsertions, TemplateError } from './index.js'
import { HOT_RENDERS, oneByte } from './render.js'

// The program lays the output out as parts (one per run of text, one per
// insertion) and its instructions skip parts by range: these tests pin the
// boundaries of those ranges (blocks side by side, nested, empty, at either
// end of the source) and the positions renderWithInsertions reports.

describe('render: branches not taken', () => {
  const nested = 'A{{#if a}}B{{#if b}}C{{else}}D{{x}}E{{/if}}F{{else}}G{{#if !b}}H{{/if}}I{{/if}}J'

  it.each([
    [{ a: 'y', b: 'y', x: 'X' }, 'ABCFJ'],
    [{ a: 'y', b: null, x: 'X' }, 'ABDXEFJ'],
    [{ a: null, b: 'y', x: 'X' }, 'AGIJ'],
    [{ a: null, b: null, x: 'X' }, 'AGHIJ'],
  ])('a failed test skips its whole branch, nested blocks included (%j)', (values, expected) => {
    expect(compileTemplate(nested).render(values)).toBe(expected)
  })

  it('a valueless insertion in a branch not taken does not fail; in a branch taken it fails at its tag', () => {
    const t = compileTemplate(nested)
    expect(t.render({ a: null, b: null, x: null })).toBe('AGHIJ')
    expect(t.render({ a: 'y', b: 'y', x: null })).toBe('ABCFJ')
    let error: unknown
    try {
      t.render({ a: 'y', b: null, x: null })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(TemplateError)
    expect((error as TemplateError).code).toBe('valueless-variable')
    expect((error as TemplateError).column).toBe(nested.indexOf('{{x}}') + 1)
  })

  it('blocks side by side, empty branches and blocks at either end keep the text around them', () => {
    const t = compileTemplate(
      '{{#if a}}{{/if}}{{#if a}}1{{else}}{{/if}}{{#if !a}}{{else}}2{{/if}}{{a}}{{a}}3{{#if a}}4{{/if}}',
      { strict: false },
    )
    expect(t.render({ a: 'v' })).toBe('12vv34')
    expect(t.render({ a: null })).toBe('3')
  })

  it('a block whose test fails at the very end, and an else branch that runs to the end', () => {
    expect(compileTemplate('x{{#if a}}y{{/if}}').render({ a: null })).toBe('x')
    expect(compileTemplate('x{{#if a}}y{{else}}z{{/if}}').render({ a: null })).toBe('xz')
    expect(compileTemplate('{{#if a}}y{{else}}z{{/if}}').render({ a: 'v' })).toBe('y')
  })

  it('literal tags in lenient mode stay in the text runs around them', () => {
    const t = compileTemplate('a{{/if}}b{{#if x}}c{{else}}d{{/if}}e{{else}}f', { strict: false })
    expect(t.render({ x: 'v' })).toBe('a{{/if}}bce{{else}}f')
    expect(t.render({})).toBe('a{{/if}}bde{{else}}f')
  })

  it('renders the same again and again (the program is not changed by a render)', () => {
    const t = compileTemplate(nested)
    const first = t.render({ a: null, b: 'y', x: 'X' })
    expect(t.render({ a: 'y', b: null, x: 'X' })).toBe('ABDXEFJ')
    expect(t.render({ a: null, b: 'y', x: 'X' })).toBe(first)
  })
})

describe('renderWithInsertions: positions', () => {
  it('counts the parts before each insertion, across skipped branches and adjacent insertions', () => {
    const t = compileTemplate('{{a}}{{b}}-{{#if c}}{{a}}{{else}}[{{b}}]{{/if}}{{#if !c}}{{/if}}{{a}}')
    const { text, insertions } = renderWithInsertions(t, { a: 'AA', b: 'B', c: null })
    expect(text).toBe('AAB-[B]AA')
    expect(insertions).toEqual([
      { key: 'a', start: 0, end: 2 },
      { key: 'b', start: 2, end: 3 },
      { key: 'b', start: 5, end: 6 },
      { key: 'a', start: 7, end: 9 },
    ])
  })

  it('reports an insertion that opens the output, and none for empty or absent values', () => {
    const t = compileTemplate('{{a}}x{{b}}y{{c}}', { strict: false })
    expect(renderWithInsertions(t, { a: 'A', b: '', c: 'C' })).toEqual({
      text: 'AxyC',
      insertions: [
        { key: 'a', start: 0, end: 1 },
        { key: 'c', start: 3, end: 4 },
      ],
    })
  })

  type Node = { text: string } | { key: string } | { key: string; negated: boolean; yes: Node[]; no: Node[] }
  const KEYS = ['a', 'b', 'c']
  const text = fc.string({ unit: fc.constantFrom('x', 'y', ' ', '\n', 'é', '😀'), maxLength: 4 })
  const { tree } = fc.letrec<{ tree: Node[]; node: Node }>((tie) => ({
    tree: fc.array(tie('node'), { maxLength: 5 }),
    node: fc.oneof(
      { depthSize: 'small' },
      text.map((t): Node => ({ text: t })),
      fc.constantFrom(...KEYS).map((key): Node => ({ key })),
      fc.record({ key: fc.constantFrom(...KEYS), negated: fc.boolean(), yes: tie('tree'), no: tie('tree') }),
    ),
  }))
  const print = (nodes: readonly Node[]): string =>
    nodes
      .map((n) =>
        'text' in n
          ? n.text
          : !('yes' in n)
            ? `{{${n.key}}}`
            : `{{#if ${n.negated ? '!' : ''}${n.key}}}${print(n.yes)}${n.no.length > 0 ? `{{else}}${print(n.no)}` : ''}{{/if}}`,
      )
      .join('')
  /** The output and its insertions, written independently of the engine. */
  const evaluate = (
    nodes: readonly Node[],
    values: Readonly<Record<string, string | null>>,
    out: { text: string; insertions: { key: string; start: number; end: number }[] },
  ): void => {
    for (const n of nodes) {
      if ('text' in n) out.text += n.text
      else if (!('yes' in n)) {
        const value = values[n.key] ?? ''
        if (value !== '')
          out.insertions.push({ key: n.key, start: out.text.length, end: out.text.length + value.length })
        out.text += value
      } else evaluate((values[n.key] != null) !== n.negated ? n.yes : n.no, values, out)
    }
  }

  it('match a reference evaluator on generated nested templates (property)', () => {
    fc.assert(
      fc.property(
        tree,
        fc.array(fc.oneof(text, fc.constant(null)), { minLength: KEYS.length, maxLength: KEYS.length }),
        (nodes, picked) => {
          const values = Object.fromEntries(KEYS.map((k, i) => [k, picked[i]!]))
          const expected = { text: '', insertions: [] }
          evaluate(nodes, values, expected)
          const t = compileTemplate(print(nodes), { strict: false })
          expect(renderWithInsertions(t, values)).toEqual(expected)
          expect(t.render(values)).toBe(expected.text)
        },
      ),
      { numRuns: propertyRuns(300) },
    )
  })
})

describe('render: a template rendered often (from its layout)', () => {
  // After HOT_RENDERS renders a template keeps a layout of the path its
  // values took, and renders with the same pattern of present keys fill it.
  // Nothing a caller sees may change: the text, the insertions, the errors,
  // whichever pattern comes next. A character above U+00FF makes every
  // literal part a two-byte slice, which the layout copies to one byte.
  const source =
    'a — {{x}} b{{#if y}} 😀 {{y}} c{{else}} d \ud800 e{{/if}} f é {{x}}{{x}} g{{#if !z}}{{y}}{{/if}}'

  it('renders the same text, positions and errors before, at and after the threshold', () => {
    const t = compileTemplate(source, { strict: false })
    const withY = { x: 'X', y: 'Y—', z: null }
    const withoutY = { x: 'X', y: null, z: 'Z' }
    const before = [t.render(withY), t.render(withoutY), renderWithInsertions(t, withY)]
    expect(before[0]).toBe('a — X b 😀 Y— c f é XX gY—')
    expect(before[1]).toBe('a — X b d \ud800 e f é XX g')
    for (let i = 0; i < 3 * HOT_RENDERS; i++) {
      expect(t.render(withY)).toBe(before[0])
      if (i % 7 === 0) expect(t.render(withoutY)).toBe(before[1])
    }
    // The same pattern with other values, empty ones included, fills the layout with them.
    expect(t.render({ x: '', y: 'é', z: null })).toBe('a —  b 😀 é c f é  gé')
    expect(t.render({ x: '1', y: '', z: undefined })).toBe('a — 1 b 😀  c f é 11 g')
    expect(renderWithInsertions(t, withY)).toEqual(before[2])
  })

  it("a pattern other than the layout's renders by the program, errors included", () => {
    const t = compileTemplate(source)
    const values = { x: 'X', y: 'Y', z: 'Z' }
    for (let i = 0; i < 2 * HOT_RENDERS; i++) t.render(values)
    expect(t.render({ x: 'X', y: null, z: 'Z' })).toBe('a — X b d \ud800 e f é XX g')
    expect(() => t.render({ x: null, y: 'Y', z: 'Z' })).toThrow(
      expect.objectContaining({ code: 'valueless-variable', column: source.indexOf('{{x}}') + 1 }),
    )
    expect(() => t.render({ x: 'X', y: 'Y' })).toThrow(expect.objectContaining({ code: 'unknown-variable' }))
    expect(() => t.render({ x: 'X', y: 1 as unknown as string, z: 'Z' })).toThrow(TypeError)
    expect(
      t.render(
        new Map([
          ['x', 'M'],
          ['y', 'N'],
          ['z', 'O'],
        ]),
      ),
    ).toBe('a — M b 😀 N c f é MM g')
  })

  it('a template whose pattern changes for good gets a layout for the new one', () => {
    const t = compileTemplate('<{{#if a}}A{{a}}{{/if}}|{{#if b}}B{{b}}{{/if}}>')
    for (let i = 0; i < HOT_RENDERS + 1; i++) expect(t.render({ a: `${i}`, b: null })).toBe(`<A${i}|>`)
    for (let i = 0; i < 2 * HOT_RENDERS + 1; i++) {
      expect(t.render({ a: null, b: `${i}` })).toBe(`<|B${i}>`)
      expect(t.render({ a: null, b: null })).toBe('<|>')
    }
    for (let i = 0; i < 2 * HOT_RENDERS; i++) expect(t.render({ a: `${i}`, b: `${i}` })).toBe(`<A${i}|B${i}>`)
  })

  it('matches a reference evaluator on generated templates rendered past the threshold (property)', () => {
    const keys = ['a', 'b', 'c'] as const
    const node = fc.oneof(
      fc.constantFrom('x', 'é', '—', ' ', ''),
      fc.constantFrom(...keys).map((k) => `{{${k}}}`),
      fc
        .tuple(fc.constantFrom(...keys), fc.boolean(), fc.constantFrom('T', '{{a}}', '{{b}}{{c}}', '😀'))
        .map(([k, negated, body]) => `{{#if ${negated ? '!' : ''}${k}}}${body}{{else}}E{{/if}}`),
    )
    const value = fc.oneof(fc.constantFrom(null, '', 'v', 'é', '\ud800'), fc.string({ maxLength: 3 }))
    const valuesOf = fc.tuple(value, value, value).map(([a, b, c]) => ({ a, b, c }))
    const reference = (src: string, values: Readonly<Record<string, string | null>>): string =>
      src
        .replace(/\{\{#if (!?)(\w)\}\}(.*?)\{\{else\}\}(.*?)\{\{\/if\}\}/g, (_, neg, k, yes, no) =>
          (values[k] != null) !== (neg === '!') ? yes : no,
        )
        .replace(/\{\{(\w)\}\}/g, (_, k) => values[k] ?? '')
    fc.assert(
      fc.property(
        fc.array(node, { maxLength: 8 }),
        valuesOf,
        fc.array(valuesOf, { maxLength: 6 }),
        (nodes, hot, later) => {
          const src = nodes.join('')
          const t = compileTemplate(src, { strict: false })
          for (let i = 0; i < HOT_RENDERS; i++) t.render(hot)
          for (const values of [hot, ...later]) expect(t.render(values)).toBe(reference(src, values))
        },
      ),
      { numRuns: propertyRuns(100) },
    )
  })

  it('oneByte keeps every text equal, whatever the characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), (text) => {
        expect(oneByte(text)).toBe(text)
      }),
      { numRuns: propertyRuns(300) },
    )
  })
})
