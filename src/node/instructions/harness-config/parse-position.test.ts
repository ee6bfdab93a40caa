import { describe, expect, it } from 'vitest'
import { parseJson } from './parse.js'

// Where a strict JSON file stops being valid comes from the parser's own
// words about the offset, never from the file's text that its message quotes.

describe('parseJson positions', () => {
  it('ignores positions quoted from the file itself', async () => {
    for (const text of ['line 9 column 9', 'x at position 40', 'position 12 (line 3 column 4)'])
      expect(await parseJson(text, false), text).toEqual({ ok: false, line: 1, column: 1 })
  })

  it('finds an error past the first ten characters and lines', async () => {
    const text = `{\n${'"k": 1,\n'.repeat(10)}"last" 2\n}`
    expect(await parseJson(text, false)).toEqual({ ok: false, line: 12, column: 8 })
    expect(await parseJson('{"a": 1, "bb": 2, "c" 3}', false)).toEqual({ ok: false, line: 1, column: 23 })
  })
})
