import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseSse } from './sse.js'

describe('parseSse', () => {
  it('reads events, joins data lines, drops comments and one leading space', () => {
    const text = ': ping\r\nevent: a\r\ndata: {"x":1}\r\n\r\ndata:two\ndata:  lines\n\nevent: b\rdata: last'
    expect(parseSse(text)).toEqual([
      { event: 'a', data: '{"x":1}' },
      { event: 'message', data: 'two\n lines' },
      { event: 'b', data: 'last' },
    ])
  })

  it('dispatches nothing for an event without data', () => {
    expect(parseSse('event: a\n\n\n')).toEqual([])
  })

  it('never throws, and gives back each data line written', () => {
    fc.assert(
      fc.property(fc.array(fc.string().filter((s) => !/[\r\n]/.test(s))), (lines) => {
        const events = parseSse(lines.map((l) => `data: ${l}\n\n`).join(''))
        expect(events.map((e) => e.data)).toEqual(lines)
      }),
    )
    fc.assert(fc.property(fc.string(), (text) => Array.isArray(parseSse(text))))
  })
})
