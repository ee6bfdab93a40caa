import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { compileTemplate, type Dialect, TemplateError } from './index.js'

// ---------------------------------------------------------------------------
// Generators

/** Pieces that make tags, half-tags and near-misses in both dialects. */
const FRAGMENTS = [
  '{{',
  '}}',
  '{',
  '}',
  '[',
  ']',
  '#if ',
  '#if !',
  '/if',
  'else',
  'endif',
  'if ',
  'if !',
  '!',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\r',
  ':',
  'a',
  'x',
  'model',
  'git:branch',
  'a:b',
  'file:docs/A.md',
  'constructor',
  '__proto__',
  '{{x}}',
  '{{#if x}}',
  '{{else}}',
  '{{/if}}',
  '[a:b]',
  '[if a:b]',
  '[else]',
  '[endif]',
  '😀',
  'é',
]

/** Arbitrary text, biased towards tag syntax. */
const soup = fc
  .array(
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...FRAGMENTS) }, { weight: 1, arbitrary: fc.string() }),
    {
      maxLength: 40,
    },
  )
  .map((parts) => parts.join(''))

/** Any string: biased soup, or fully arbitrary UTF-16 (lone surrogates included). */
const anyText = fc.oneof(soup, fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ maxLength: 60 }))

/** A value for one key: a string (often with tag syntax), `null`, `undefined`, or missing altogether. */
const MISSING = Symbol('missing')
const valueArb = fc.oneof(anyText, fc.constant(null), fc.constant(undefined), fc.constant(MISSING))

type Value = string | null | undefined

function buildValues(
  keys: readonly string[],
  picked: ReadonlyArray<Value | typeof MISSING>,
  extra: Record<string, Value>,
): Record<string, Value> {
  const values: Record<string, Value> = { ...extra }
  keys.forEach((key, i) => {
    const value = picked[i]
    if (value !== MISSING) values[key] = value
    else delete values[key]
  })
  return values
}

/** A well-formed template as a tree, printed into either dialect. */
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'insert'; key: string }
  | { kind: 'if'; key: string; negated: boolean; spaces: number; yes: Node[]; no: Node[] | null }

/** Text that cannot form or touch a tag in either dialect. */
const safeText = fc.string({ unit: fc.constantFrom(...Array.from('ab Z:!#/-_.\n\r\té😀')), maxLength: 8 })

function nodeArb(keys: fc.Arbitrary<string>) {
  const { tree } = fc.letrec<{ tree: Node[]; node: Node }>((tie) => ({
    tree: fc.array(tie('node'), { maxLength: 5 }),
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      safeText.map((text): Node => ({ kind: 'text', text })),
      keys.map((key): Node => ({ kind: 'insert', key })),
      fc
        .record({
          key: keys,
          negated: fc.boolean(),
          spaces: fc.integer({ min: 1, max: 3 }),
          yes: tie('tree'),
          no: fc.option(tie('tree'), { nil: null }),
        })
        .map((r): Node => ({ kind: 'if', ...r })),
    ),
  }))
  return tree
}

const NAMESPACED_KEYS = ['a:b', 'git:branch', 'file:docs/AGENTS.md', 'my-ns:x.y', 'prompt:cwd']
const PLAIN_KEYS = ['model', 'cwd', 'x', 'constructor']
const namespacedTree = nodeArb(fc.constantFrom(...NAMESPACED_KEYS))
const mustacheTree = nodeArb(fc.constantFrom(...NAMESPACED_KEYS, ...PLAIN_KEYS))

function print(nodes: readonly Node[], dialect: Dialect): string {
  const [open, close] = dialect === 'mustache' ? ['{{', '}}'] : ['[', ']']
  const [ifWord, elseWord, endWord] =
    dialect === 'mustache' ? ['#if', 'else', '/if'] : ['if', 'else', 'endif']
  let out = ''
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text
    else if (node.kind === 'insert') out += `${open}${node.key}${close}`
    else {
      out += `${open}${ifWord}${' '.repeat(node.spaces)}${node.negated ? '!' : ''}${node.key}${close}`
      out += print(node.yes, dialect)
      if (node.no !== null) out += `${open}${elseWord}${close}${print(node.no, dialect)}`
      out += `${open}${endWord}${close}`
    }
  }
  return out
}

/** The meaning of a template, written independently of the engine. */
function evaluate(nodes: readonly Node[], values: Readonly<Record<string, Value>>): string {
  const get = (key: string): Value => (Object.hasOwn(values, key) ? values[key] : undefined)
  let out = ''
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text
    else if (node.kind === 'insert') out += get(node.key) ?? ''
    else {
      const present = typeof get(node.key) === 'string'
      if (present !== node.negated) out += evaluate(node.yes, values)
      else if (node.no !== null) out += evaluate(node.no, values)
    }
  }
  return out
}

/** Keys of a tree in source order, deduplicated. */
function keysOf(nodes: readonly Node[], into: string[] = []): string[] {
  for (const node of nodes) {
    if (node.kind === 'text') continue
    if (!into.includes(node.key)) into.push(node.key)
    if (node.kind === 'if') {
      keysOf(node.yes, into)
      if (node.no !== null) keysOf(node.no, into)
    }
  }
  return into
}

const valuesFor = (keys: readonly string[]) =>
  fc.tuple(
    fc.array(valueArb, { minLength: keys.length, maxLength: keys.length }),
    fc.dictionary(soup, anyText),
  )

const DIALECTS: Dialect[] = ['mustache', 'bracket']
const RUNS = { numRuns: propertyRuns(300) }

// ---------------------------------------------------------------------------

describe('properties: lenient mode never throws', () => {
  for (const dialect of DIALECTS) {
    it(`${dialect}: compiles and renders any string with any string or null values`, () => {
      fc.assert(
        fc.property(anyText, fc.infiniteStream(valueArb), fc.boolean(), (source, stream, asMap) => {
          const template = compileTemplate(source, { dialect, strict: false })
          const picked = template.variables.map(() => stream.next().value)
          const values = buildValues(template.variables, picked, {})
          const out = template.render(asMap ? new Map(Object.entries(values)) : values)
          expect(typeof out).toBe('string')
          for (const d of template.diagnostics) {
            expect(d.line).toBeGreaterThanOrEqual(1)
            expect(d.column).toBeGreaterThanOrEqual(1)
            expect(d.message).not.toMatch(/[\r\n]/)
          }
        }),
        { numRuns: propertyRuns(1_000) },
      )
    })
  }

  it('strict mode throws exactly what lenient mode reports, and otherwise renders as lenient mode does', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom(...DIALECTS), (source, dialect) => {
        const lenient = compileTemplate(source, { dialect, strict: false })
        // Every key present with a string: only parse-time problems remain.
        const values = Object.fromEntries(lenient.variables.map((key) => [key, 'v']))
        const first = lenient.diagnostics[0]
        let thrown: unknown
        let out: string | undefined
        try {
          out = compileTemplate(source, { dialect, strict: true }).render(values)
        } catch (error) {
          thrown = error
        }
        if (first === undefined) {
          expect(thrown).toBeUndefined()
          expect(out).toBe(lenient.render(values))
        } else {
          expect(thrown).toBeInstanceOf(TemplateError)
          expect(thrown).toMatchObject({ code: first.code, line: first.line, column: first.column })
        }
      }),
      { numRuns: propertyRuns(1_000) },
    )
  })

  it('strict mode throws unknown-variable for a key missing from the values, valueless for a null insertion', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom(...DIALECTS), fc.nat(), (source, dialect, pick) => {
        const lenient = compileTemplate(source, { dialect, strict: false })
        fc.pre(lenient.diagnostics.length === 0 && lenient.variables.length > 0)
        const missing = lenient.variables[pick % lenient.variables.length]!
        const values = Object.fromEntries(lenient.variables.filter((k) => k !== missing).map((k) => [k, 'v']))
        const strict = compileTemplate(source, { dialect, strict: true })
        expect(() => strict.render(values)).toThrow(TemplateError)
        expect(() => strict.render(values)).toThrow(expect.objectContaining({ code: 'unknown-variable' }))
        // Null: valueless when inserted, false when only tested; never unknown.
        let error: unknown
        try {
          strict.render({ ...values, [missing]: null })
        } catch (thrown) {
          error = thrown
        }
        if (error !== undefined) expect(error).toMatchObject({ code: 'valueless-variable' })
      }),
      { numRuns: propertyRuns(1_000) },
    )
  })
})

describe('properties: text without tags renders to itself', () => {
  it('a mustache source without "}}" renders to itself, strict or lenient', () => {
    fc.assert(
      fc.property(
        anyText.filter((s) => !s.includes('}}')),
        (source) => {
          expect(compileTemplate(source).render({})).toBe(source)
          expect(compileTemplate(source, { strict: false }).render({})).toBe(source)
          expect(compileTemplate(source).variables).toEqual([])
        },
      ),
      RUNS,
    )
  })

  it('a mustache source without braces renders to itself', () => {
    fc.assert(
      fc.property(
        anyText.map((s) => s.replace(/[{}]/g, '')),
        (source) => {
          expect(compileTemplate(source).render({ x: 'v' })).toBe(source)
        },
      ),
      RUNS,
    )
  })

  it('a bracket source without "]" renders to itself, strict or lenient', () => {
    fc.assert(
      fc.property(
        anyText.map((s) => s.replace(/]/g, '')),
        (source) => {
          expect(compileTemplate(source, { dialect: 'bracket' }).render({ 'a:b': 'v' })).toBe(source)
          expect(compileTemplate(source, { dialect: 'bracket', strict: true }).render({})).toBe(source)
        },
      ),
      RUNS,
    )
  })

  it('a bracket source without ":" renders to itself in lenient mode (no key can form)', () => {
    fc.assert(
      fc.property(
        anyText.map((s) => s.replace(/:/g, '')),
        (source) => {
          expect(compileTemplate(source, { dialect: 'bracket' }).render({})).toBe(source)
        },
      ),
      RUNS,
    )
  })
})

describe('properties: substituted values are never scanned again', () => {
  it('a value appears verbatim, whatever tag syntax it holds', () => {
    fc.assert(
      fc.property(anyText, safeText, safeText, (value, before, after) => {
        const values = { k: value, x: 'X', 'a:b': 'AB' }
        expect(compileTemplate(`${before}{{k}}${after}`).render(values)).toBe(`${before}${value}${after}`)
        expect(
          compileTemplate(`${before}[a:k]${after}`, { dialect: 'bracket' }).render({ 'a:k': value }),
        ).toBe(`${before}${value}${after}`)
      }),
      RUNS,
    )
  })

  it('generated templates render like the reference evaluator with values full of tag syntax', () => {
    fc.assert(
      fc.property(
        mustacheTree.chain((tree) => fc.tuple(fc.constant(tree), valuesFor(keysOf(tree)))),
        ([tree, [picked, extra]]) => {
          const values = buildValues(keysOf(tree), picked, extra)
          const template = compileTemplate(print(tree, 'mustache'), { strict: false })
          expect(template.render(values)).toBe(evaluate(tree, values))
        },
      ),
      RUNS,
    )
  })
})

describe('properties: generated well-formed templates', () => {
  it('compile cleanly in both dialects and list their keys in source order', () => {
    fc.assert(
      fc.property(namespacedTree, (tree) => {
        for (const dialect of DIALECTS) {
          for (const strict of [true, false]) {
            const template = compileTemplate(print(tree, dialect), { dialect, strict })
            expect(template.diagnostics).toEqual([])
            expect(template.variables).toEqual(keysOf(tree))
          }
        }
      }),
      RUNS,
    )
  })

  it('strict and lenient agree; strict fails only for unknown or valueless keys', () => {
    fc.assert(
      fc.property(
        mustacheTree.chain((tree) => fc.tuple(fc.constant(tree), valuesFor(keysOf(tree)))),
        ([tree, [picked, extra]]) => {
          const keys = keysOf(tree)
          const values = buildValues(keys, picked, extra)
          const source = print(tree, 'mustache')
          const lenientOut = compileTemplate(source, { strict: false }).render(values)
          let strictOut: string | undefined
          let code: string | undefined
          try {
            strictOut = compileTemplate(source, { strict: true }).render(values)
          } catch (error) {
            expect(error).toBeInstanceOf(TemplateError)
            code = (error as TemplateError).code
          }
          const unknown = keys.some((key) => !Object.hasOwn(values, key))
          if (unknown) expect(code).toBe('unknown-variable')
          else if (code !== undefined) expect(code).toBe('valueless-variable')
          else expect(strictOut).toBe(lenientOut)
          if (keys.every((key) => Object.hasOwn(values, key) && typeof values[key] === 'string'))
            expect(strictOut).toBe(lenientOut)
        },
      ),
      RUNS,
    )
  })

  it('a bracket template and its mustache translation render identically', () => {
    fc.assert(
      fc.property(
        namespacedTree.chain((tree) => fc.tuple(fc.constant(tree), valuesFor(keysOf(tree)), fc.boolean())),
        ([tree, [picked, extra], strict]) => {
          const values = buildValues(keysOf(tree), picked, extra)
          const bracket = compileTemplate(print(tree, 'bracket'), { dialect: 'bracket', strict })
          const mustache = compileTemplate(print(tree, 'mustache'), { dialect: 'mustache', strict })
          const outcome = (render: () => string): string => {
            try {
              return `ok:${render()}`
            } catch (error) {
              return `error:${(error as TemplateError).code}:${(error as TemplateError).column > 0}`
            }
          }
          expect(outcome(() => bracket.render(values))).toBe(outcome(() => mustache.render(values)))
          if (!strict) expect(bracket.render(values)).toBe(evaluate(tree, values))
        },
      ),
      RUNS,
    )
  })

  it('a Map and a plain object with the same entries render the same', () => {
    fc.assert(
      fc.property(
        mustacheTree.chain((tree) => fc.tuple(fc.constant(tree), valuesFor(keysOf(tree)))),
        ([tree, [picked, extra]]) => {
          const values = buildValues(keysOf(tree), picked, extra)
          const template = compileTemplate(print(tree, 'mustache'), { strict: false })
          expect(template.render(new Map(Object.entries(values)))).toBe(template.render(values))
        },
      ),
      RUNS,
    )
  })
})
