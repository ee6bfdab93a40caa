import { describe, expect, it } from 'vitest'
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
