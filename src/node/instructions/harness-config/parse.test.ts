import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../../test/property-runs.test-helper.js'
import { at, parseJson, parseToml } from './parse.js'

// The harness configuration parsers: the data, or where the text stops
// being valid (1-based line and column), never the parser's own message.

describe('parseToml', () => {
  it('parses TOML and reports an error by line and column', async () => {
    expect(await parseToml('project_doc_max_bytes = 10\n[projects."/r"]\ntrust_level = "trusted"\n')).toEqual(
      {
        ok: true,
        data: { project_doc_max_bytes: 10, projects: { '/r': { trust_level: 'trusted' } } },
      },
    )
    expect(await parseToml('a = 1\nb = = 2\n')).toEqual({ ok: false, line: 2, column: 5 })
  })
})

describe('parseJson', () => {
  it('parses strict JSON and finds the line and column of an error', async () => {
    expect(await parseJson('{"a": [1, 2]}', false)).toEqual({ ok: true, data: { a: [1, 2] } })
    expect(await parseJson('{\n  "a": 1,\n  "b" 2\n}', false)).toEqual({ ok: false, line: 3, column: 7 })
    expect(await parseJson('{"a": 1,}', false)).toMatchObject({ ok: false, line: 1 })
    expect(await parseJson('', false)).toEqual({ ok: false, line: 1, column: 1 })
  })

  it('allows comments and trailing commas only when asked, with the error position as an offset', async () => {
    const text = '{\n  // the names\n  "context": { "fileName": ["A.md",], },\n}'
    expect(await parseJson(text, true)).toEqual({ ok: true, data: { context: { fileName: ['A.md'] } } })
    expect((await parseJson(text, false)).ok).toBe(false)
    expect(await parseJson('{\n  "a": 1\n  "b": 2\n}', true)).toEqual({ ok: false, line: 3, column: 3 })
    expect(await parseJson('{"a": tru}', true)).toEqual({ ok: false, line: 1, column: 7 })
  })
})

describe('nesting past the limit (256 levels)', () => {
  const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`
  const problem = 'nests lists and objects deeper than 256 levels, the limit for files read from a repository'

  it('refuses JSON with or without comments at the bracket past the limit, before the parser recurses', async () => {
    for (const comments of [true, false]) {
      expect((await parseJson(nested(256), comments)).ok).toBe(true)
      expect(await parseJson(nested(5000), comments)).toEqual({ ok: false, line: 1, column: 257, problem })
      expect(await parseJson(`{\n  "x": ${nested(300, '{"a":', '}')}\n}`, comments)).toEqual({
        ok: false,
        line: 2,
        column: 8 + 5 * 255,
        problem,
      })
    }
    // jsonc-parser skips a stray closing bracket, so `[}` nests one level each.
    expect(await parseJson('[}'.repeat(5000), true)).toMatchObject({ ok: false, column: 513, problem })
  })

  it('refuses TOML nested past the limit in inline arrays and tables, and in dotted keys and headers', async () => {
    // The document is a table, the first level.
    expect((await parseToml(`a = ${nested(255)}`)).ok).toBe(true)
    expect(await parseToml(`a = ${nested(256)}`)).toEqual({ ok: false, line: 1, column: 260, problem })
    expect(await parseToml(`a = ${nested(5000)}`)).toEqual({ ok: false, line: 1, column: 260, problem })
    expect(await parseToml(`\na = ${nested(300, '{b=', '}')}`)).toMatchObject({ ok: false, line: 2, problem })
    expect((await parseToml(`a${'.a'.repeat(255)} = 1`)).ok).toBe(true)
    expect(await parseToml(`a${'.a'.repeat(256)} = 1`)).toMatchObject({ ok: false, problem })
    expect(await parseToml(`[a${'.a'.repeat(300)}]\nx = 1`)).toMatchObject({ ok: false, problem })
  })

  it('at any depth and mix of brackets, gives a value or a clear error, never a thrown RangeError', async () => {
    const shape = fc.record({
      depth: fc.integer({ min: 0, max: 20_000 }),
      openers: fc.array(fc.constantFrom('[', '{"a":', '{', '[1,', '{"b": [', '{a = '), {
        minLength: 1,
        maxLength: 4,
      }),
      format: fc.constantFrom('jsonc', 'json', 'toml'),
    })
    await fc.assert(
      fc.asyncProperty(shape, async ({ depth, openers, format }) => {
        const open = Array.from({ length: depth }, (_, i) => openers[i % openers.length]).join('')
        const text = format === 'toml' ? `a = ${open}1` : `${open}1`
        const parsed = format === 'toml' ? await parseToml(text) : await parseJson(text, format === 'jsonc')
        if (!parsed.ok && parsed.problem !== undefined) expect(parsed.problem).toBe(problem)
        if (depth > 260) expect(parsed.ok).toBe(false)
      }),
      { numRuns: propertyRuns(200) },
    )
  })
})

describe('at', () => {
  it('walks plain objects only, by own keys', () => {
    const data = { context: { fileName: ['A.md'] }, list: [{ x: 1 }], nothing: null }
    expect(at(data, ['context', 'fileName'])).toEqual(['A.md'])
    expect(at(data, [])).toBe(data)
    expect(at(data, ['context', 'missing'])).toBeUndefined()
    expect(at(data, ['list', '0'])).toBeUndefined()
    expect(at(data, ['nothing', 'x'])).toBeUndefined()
    expect(at(data, ['context', 'toString'])).toBeUndefined()
    expect(at('text', ['length'])).toBeUndefined()
    expect(at(data, ['nothing'])).toBeNull()
  })
})
