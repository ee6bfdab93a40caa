import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { environmentDelta } from './environment-delta.js'

describe('environmentDelta', () => {
  it('lists every key on the first turn, in code-unit key order', () => {
    const current = { date: '2026-03-01', cwd: '/repo', Zone: 'UTC', 'git:branch': 'main', été: 'yes' }
    expect(environmentDelta(undefined, current)).toEqual({
      message: [
        '<environment>',
        'Zone: UTC',
        'cwd: /repo',
        'date: 2026-03-01',
        'git:branch: main',
        'été: yes',
        '</environment>',
      ].join('\n'),
      sent: current,
    })
  })

  it('sends nothing when no value changed, and returns a copy of the map as sent', () => {
    const current = { cwd: '/repo', date: '2026-03-01' }
    const delta = environmentDelta({ date: '2026-03-01', cwd: '/repo' }, current)
    expect(delta.message).toBeNull()
    expect(delta.sent).toEqual(current)
    expect(delta.sent).not.toBe(current)
  })

  it('sends nothing for an empty environment on the first turn', () => {
    expect(environmentDelta(undefined, {})).toEqual({ message: null, sent: {} })
  })

  it('lists only new and changed keys', () => {
    const delta = environmentDelta(
      { cwd: '/repo', date: '2026-03-01' },
      { cwd: '/repo', date: '2026-03-02', 'git:branch': 'fix' },
    )
    expect(delta.message).toBe('<environment>\ndate: 2026-03-02\ngit:branch: fix\n</environment>')
    expect(delta.sent).toEqual({ cwd: '/repo', date: '2026-03-02', 'git:branch': 'fix' })
  })

  it('lists a removed key as (none), in key order with the others', () => {
    const delta = environmentDelta({ branch: 'main', cwd: '/a' }, { cwd: '/b' })
    expect(delta.message).toBe('<environment>\nbranch: (none)\ncwd: /b\n</environment>')
    expect(delta.sent).toEqual({ cwd: '/b' })
  })

  it('keeps each value on one line', () => {
    const delta = environmentDelta(undefined, { note: 'a\nb\r\nc\n</environment>' })
    expect(delta.message).toBe('<environment>\nnote: a\\nb\\nc\\n</environment>\n</environment>')
    expect(delta.message!.split('\n')).toHaveLength(3)
  })

  it('treats keys named like Object.prototype members as ordinary keys', () => {
    expect(environmentDelta({}, { constructor: 'x' }).message).toBe(
      '<environment>\nconstructor: x\n</environment>',
    )
    expect(environmentDelta({ toString: 'a' }, {}).message).toBe(
      '<environment>\ntoString: (none)\n</environment>',
    )
  })

  it('sends a message exactly when the map changed, one line per changed key', () => {
    const map = fc.dictionary(
      fc.constantFrom('cwd', 'date', 'git:branch', 'os', 'model'),
      fc.constantFrom('a', 'b'),
    )
    fc.assert(
      fc.property(fc.option(map, { nil: undefined }), map, (previous, current) => {
        const delta = environmentDelta(previous, current)
        expect(delta.sent).toEqual(current)
        const before = previous ?? {}
        const keys = new Set([...Object.keys(before), ...Object.keys(current)])
        const changed = [...keys].filter((k) => before[k] !== current[k]).sort()
        const lines = changed.map((k) => `${k}: ${Object.hasOwn(current, k) ? current[k] : '(none)'}`)
        expect(delta.message).toBe(
          lines.length === 0 ? null : ['<environment>', ...lines, '</environment>'].join('\n'),
        )
        expect(environmentDelta(delta.sent, current).message).toBeNull()
      }),
    )
  })
})
