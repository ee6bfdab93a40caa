import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { type FragmentError, formatFragmentError, fragmentIdFromPath, parseFragment } from './fragment.js'
import { hashText } from './hash.js'

const file = '/cfg/sysprompt/identity/default.md'
const opts = { file, relPath: 'identity/default.md' }

function parseOk(text: string) {
  const result = parseFragment(text, opts)
  expect(result.errors).toEqual([])
  return result.fragment!
}

function parseErr(text: string): FragmentError {
  const result = parseFragment(text, opts)
  expect(result.fragment).toBeUndefined()
  expect(result.errors.length).toBeGreaterThan(0)
  return result.errors[0]!
}

describe('parseFragment: front matter fields', () => {
  it('reads every documented field', () => {
    const f = parseOk(
      [
        '---',
        'id: identity.custom',
        'order: -100',
        'stability: session',
        'priority: 50',
        'models: ["gpt-5*", "claude-*"]',
        'paths: ["src/**/*.ts"]',
        'excludes: ["src/gen/**"]',
        'enabled: false',
        'description: one line',
        'dialect: bracket',
        '---',
        'You are [persona].',
      ].join('\n'),
    )
    expect(f).toMatchObject({
      id: 'identity.custom',
      source: file,
      relPath: 'identity/default.md',
      order: -100,
      stability: 'session',
      dynamic: false,
      priority: 50,
      models: ['gpt-5*', 'claude-*'],
      paths: ['src/**/*.ts'],
      excludes: ['src/gen/**'],
      enabled: false,
      description: 'one line',
      dialect: 'bracket',
      body: 'You are [persona].',
      bodyLine: 13,
      extra: {},
    })
  })

  it('derives the id from the path inside the fragment directory', () => {
    expect(parseOk('hello').id).toBe('identity.default')
    expect(fragmentIdFromPath('rules/tests/unit.md')).toBe('rules.tests.unit')
    expect(fragmentIdFromPath('rules\\win.md')).toBe('rules.win')
    expect(fragmentIdFromPath('./top.md')).toBe('top')
    expect(parseFragment('x', { file: 'a/b.md', id: 'given' }).fragment!.id).toBe('given')
  })

  it('leaves unset optional fields out and defaults stability to static', () => {
    const f = parseOk('---\n---\nbody')
    expect(f.stability).toBe('static')
    expect(f.dynamic).toBe(false)
    for (const key of [
      'order',
      'priority',
      'models',
      'paths',
      'excludes',
      'enabled',
      'description',
      'dialect',
    ]) {
      expect(f).not.toHaveProperty(key)
    }
  })

  it('reads `dynamic: true` as stability turn, and refuses a contradiction', () => {
    const f = parseOk('---\ndynamic: true\n---\nnow')
    expect(f.stability).toBe('turn')
    expect(f.dynamic).toBe(true)
    expect(parseOk('---\ndynamic: true\nstability: turn\n---\n').dynamic).toBe(true)
    const e = parseErr('---\nstability: static\ndynamic: true\n---\n')
    expect(e).toMatchObject({ line: 3, column: 1, code: 'invalid-field' })
    expect(e.message).toMatch(/contradicts/)
  })

  it('reads a single text as a list of one for models, paths and excludes', () => {
    const f = parseOk('---\nmodels: gpt-5\npaths: src/**\nexcludes: docs/**\n---\n')
    expect([f.models, f.paths, f.excludes]).toEqual([['gpt-5'], ['src/**'], ['docs/**']])
  })

  it('keeps unknown fields in `extra`, even one named __proto__', () => {
    const f = parseOk('---\nowner: platform-team\ntags: [a, b]\n__proto__: {polluted: true}\n---\n')
    expect(f.extra.owner).toBe('platform-team')
    expect(f.extra.tags).toEqual(['a', 'b'])
    expect(Object.getPrototypeOf(f.extra)).toBe(Object.prototype)
    expect(Object.hasOwn(f.extra, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('reports where each field is written', () => {
    const r = parseFragment('---\nid: a\n\norder: 2\n---\n', opts)
    expect(r.positions).toEqual({ id: { line: 2, column: 1 }, order: { line: 4, column: 1 } })
  })
})

describe('parseFragment: body and hash', () => {
  it('normalises CRLF and drops a BOM', () => {
    const f = parseOk('\uFEFF---\r\nid: q\r\n---\r\nline 1\r\nline 2\r\n')
    expect(f.id).toBe('q')
    expect(f.body).toBe('line 1\nline 2\n')
    expect(f.bodyLine).toBe(4)
  })

  it('takes the whole text as body without front matter', () => {
    expect(parseOk('# Title\n\n---\nnot front matter').body).toBe('# Title\n\n---\nnot front matter')
  })

  it('hashes the text unless given the hash of the bytes', () => {
    const text = '---\nid: a\n---\nbody'
    expect(parseOk(text).contentHash).toBe(hashText(text))
    expect(parseFragment(text, { file, contentHash: 'sha256:given' }).fragment!.contentHash).toBe(
      'sha256:given',
    )
  })
})

describe('parseFragment: errors point into the file', () => {
  it('reports unclosed front matter at the opening line', () => {
    const e = parseErr('---\nid: a\nbody without a closing line\n')
    expect(e).toMatchObject({ file, line: 1, column: 1, code: 'unclosed-front-matter' })
    expect(e.message).toMatch(/never closed/)
  })

  it('reports broken YAML with a file line (front matter starts on line 2)', () => {
    const e = parseErr('---\nid: a\ndescription: "unterminated\n---\nbody')
    expect(e.code).toBe('yaml-syntax')
    expect(e.line).toBeGreaterThanOrEqual(3)
    expect(formatFragmentError(e)).toMatch(
      new RegExp(`^${file}:\\d+:\\d+: the front matter is not valid YAML`),
    )
  })

  it('reports a field given twice', () => {
    const e = parseErr('---\norder: 1\norder: 2\n---\n')
    expect(e).toMatchObject({ line: 3, column: 1, code: 'yaml-syntax' })
    expect(e.message).toMatch(/keep only one/)
  })

  it('says to use spaces when the front matter is indented with tabs', () => {
    const r = parseFragment('---\nid: a\npaths:\n\t- src/**\n---\n', opts)
    expect(r.errors).toEqual([expect.objectContaining({ file, line: 4, column: 1, code: 'tab-indentation' })])
    expect(r.errors[0]!.message).toMatch(/spaces/)
    expect(parseErr('---\n  \tid: a\n---\n')).toMatchObject({ line: 2, column: 3, code: 'tab-indentation' })
  })

  it('accepts a tab after the colon, which YAML allows', () => {
    expect(parseOk('---\nid:\tspaced\n---\n').id).toBe('spaced')
  })

  it('names the field, the column of the value and what to write', () => {
    const e = parseErr('---\nid: a\norder: high\n---\n')
    expect(e).toMatchObject({ line: 3, column: 8, code: 'invalid-field' })
    expect(e.message).toBe('`order` must be a number, not the text "high"; e.g. -100')
    expect(parseErr('---\nenabled: "no"\n---\n').message).toMatch(/`enabled` must be `true` or `false`/)
    expect(parseErr('---\nstability: forever\n---\n').message).toMatch(/one of `static`, `session`, `turn`/)
    expect(parseErr('---\ndialect: jinja\n---\n').message).toMatch(/`mustache`, `bracket`/)
    expect(parseErr('---\nid: 42\n---\n').message).toMatch(/`id` must be text, not the number 42; quote it/)
    expect(parseErr('---\nid: two words\n---\n').message).toMatch(/one word/)
    expect(parseErr('---\npaths: []\n---\n').message).toMatch(/empty list/)
    expect(parseErr('---\nmodels: [1]\n---\n').message).toMatch(/non-empty text/)
    expect(parseErr('---\ndescription:\n---\n').message).toMatch(/has no value/)
    expect(parseErr('---\norder: .inf\n---\n').message).toMatch(/must be a number/)
  })

  it('reports every invalid field at once', () => {
    const r = parseFragment('---\norder: x\npriority: y\n---\n', opts)
    expect(r.errors.map((e) => e.line)).toEqual([2, 3])
  })

  it('explains that an unquoted glob starting with * is a YAML alias', () => {
    const e = parseErr('---\npaths: **/*.ts\n---\n')
    expect(e).toMatchObject({ line: 2, column: 8, code: 'invalid-field' })
    expect(e.message).toMatch(/alias: quote it/)
    expect(parseErr('---\npaths:\n  - *.md\n---\n').message).toMatch(/alias/)
  })

  it('resolves aliases to anchors that exist', () => {
    expect(parseOk('---\npaths: &src ["src/**"]\nexcludes: *src\n---\n').excludes).toEqual(['src/**'])
  })

  it('treats near-misses of known fields as errors rather than extras', () => {
    expect(parseErr('---\npath: src/**\n---\n')).toMatchObject({
      line: 2,
      column: 1,
      code: 'unknown-field',
      message: 'unknown field `path`: did you mean `paths`?',
    })
    expect(parseErr('---\nOrder: 1\n---\n').message).toMatch(/`order`/)
  })

  it('refuses front matter that is not a mapping', () => {
    expect(parseErr('---\n- a\n- b\n---\n')).toMatchObject({ line: 2, column: 1, code: 'not-a-mapping' })
  })
})

describe('parseFragment: nesting past the limit', () => {
  const deepFlow = (depth: number) => `---\nx: ${'['.repeat(depth)}${']'.repeat(depth)}\n---\nbody\n`

  it('refuses front matter nested deeper than 256 levels, at the level past it, naming the limit', () => {
    // The mapping holding `x` is the first level: 255 brackets inside it are 256 levels.
    expect(parseOk(deepFlow(255)).extra.x).toBeDefined()
    const error = parseErr(deepFlow(5000))
    expect(error).toMatchObject({ code: 'too-deep', line: 2 })
    expect(error.column).toBeGreaterThan(250)
    expect(error.column).toBeLessThan(270)
    expect(error.message).toBe(
      'the front matter nests lists and objects deeper than 256 levels, the limit for files read from a repository: flatten it',
    )
    const block = Array.from({ length: 5000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')
    expect(parseErr(`---\n${block}\n---\n`).code).toBe('too-deep')
    expect(parseErr(`---\n${'- '.repeat(100_000)}x\n---\n`).code).toBe('too-deep')
  })

  it('refuses keys that are collections or aliases, which the YAML library would write out again, level by level', () => {
    // 200 lists each holding a pair keyed by the next list: 200 brackets, under the limit, but minutes in toJS.
    const keys = `${'['.repeat(200)}a${': 1]'.repeat(200)}`
    const error = parseErr(`---\nx: ${keys}\n---\n`)
    expect(error).toMatchObject({ code: 'invalid-field', line: 2, column: 5 })
    expect(error.message).toBe(
      '`x` has a key that is a list, a mapping or an alias: write keys as plain text',
    )
    expect(parseErr('---\na: &k b\nx: {*k : 1}\n---\n')).toMatchObject({ code: 'invalid-field', line: 3 })
    expect(parseOk('---\nx: {a: [1, {b: 2}], 3: c}\n---\n').extra.x).toEqual({ a: [1, { b: 2 }], 3: 'c' })
  })

  it('counts a pair in a list as a mapping of its own', () => {
    const pairs = (n: number) => `---\nx: ${'[a: '.repeat(n)}1${']'.repeat(n)}\n---\n`
    expect(parseOk(pairs(127)).extra.x).toBeDefined()
    expect(parseErr(pairs(128))).toMatchObject({ code: 'too-deep' })
  })

  it('at any nesting depth, gives a fragment or a too-deep error, never a thrown RangeError', () => {
    const opener = fc.constantFrom('[', '{a: ', '- ', '[? ', '[a: ')
    fc.assert(
      fc.property(
        fc.array(opener, { maxLength: 40 }),
        fc.integer({ min: 1, max: 4000 }),
        (openers, times) => {
          const open = Array.from(
            { length: times },
            (_, i) => openers[i % Math.max(1, openers.length)] ?? '[',
          )
          const text = `---\nx: ${open.join('')}1\n---\n`
          const r = parseFragment(text, opts)
          if (r.fragment === undefined) {
            expect(r.errors.length).toBeGreaterThan(0)
            expect(r.errors.every((e) => !/call stack/i.test(e.message))).toBe(true)
          }
        },
      ),
      { numRuns: propertyRuns(100) },
    )
  })
})

describe('parseFragment: properties', () => {
  const pieces = fc.constantFrom(
    '---',
    '\n',
    '\r\n',
    '\t',
    ' ',
    ':',
    '- ',
    '*',
    '&a',
    '"',
    '[',
    ']',
    '{',
    '#',
    'id',
    'paths',
    'order',
    '1',
    'x',
  )
  const fragmentish = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join('')),
    fc.array(pieces, { maxLength: 40 }).map((parts) => `---\n${parts.join('')}\n---\n`),
  )

  it('never throws, and every error lies inside the file', () => {
    fc.assert(
      fc.property(fragmentish, (text) => {
        const r = parseFragment(text, opts)
        expect(r.fragment === undefined).toBe(r.errors.length > 0)
        const lines = text.split(/\r\n?|\n/).length
        for (const e of r.errors) {
          expect(e.line).toBeGreaterThanOrEqual(1)
          expect(e.line).toBeLessThanOrEqual(lines)
          expect(e.column).toBeGreaterThanOrEqual(1)
          expect(e.message.length).toBeGreaterThan(0)
        }
      }),
      { numRuns: propertyRuns(500) },
    )
  })

  const fields = fc.record(
    {
      id: fc.stringMatching(/^[a-z][a-z0-9.-]{0,12}$/),
      order: fc.integer({ min: -1000, max: 1000 }),
      priority: fc.double({ noNaN: true, noDefaultInfinity: true }),
      stability: fc.constantFrom('static', 'session', 'turn'),
      models: fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 3 }),
      paths: fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 3 }),
      excludes: fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }),
      enabled: fc.boolean(),
      description: fc.string(),
      dialect: fc.constantFrom('mustache', 'bracket'),
    },
    { requiredKeys: [] },
  )

  it('round-trips the body and every field written by a YAML serialiser', () => {
    fc.assert(
      fc.property(fields, fc.string({ unit: 'grapheme' }), fc.boolean(), (record, body, crlf) => {
        const yamlText = Object.keys(record).length === 0 ? '' : stringify(record)
        const eol = crlf ? '\r\n' : '\n'
        const text = `---${eol}${yamlText.replace(/\n/g, eol)}---${eol}${body}`
        const f = parseOk(text)
        expect(f.body).toBe(body.replace(/\r\n?/g, '\n'))
        const { stability, ...rest } = record
        expect(f).toMatchObject({ ...rest, stability: stability ?? 'static', dynamic: stability === 'turn' })
      }),
      { numRuns: propertyRuns(300) },
    )
  })

  it('takes a text without front matter whole, as the body', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        fc.pre(!/^\uFEFF?---[ \t]*(\r\n?|\n|$)/.test(text))
        expect(parseOk(text).body).toBe(text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'))
      }),
    )
  })
})
