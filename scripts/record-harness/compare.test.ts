import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { firstRecordingDifference, type Recordings } from './compare.js'

const one = (placements: Record<string, string>) => ({
  placements: Object.keys(placements),
  texts: new Map(Object.entries(placements)),
})

describe('firstRecordingDifference (release following)', () => {
  it('says nothing when the new release sends the same, and names tree, placement and line when not', () => {
    const modelled: Recordings = new Map([
      ['nested', one({ 'system-prompt': 'Intro\n# Project\nUse pnpm.\n' })],
      ['ruff', one({ 'first-user-message': 'x' })],
    ])
    expect(firstRecordingDifference(modelled, modelled)).toBeUndefined()
    const changed: Recordings = new Map([
      ...modelled,
      ['nested', one({ 'system-prompt': 'Intro\n<project>\nUse pnpm.\n' })],
    ])
    expect(firstRecordingDifference(modelled, changed)).toBe(
      'tree nested, system-prompt, line 2: modelled "# Project", new "<project>"',
    )
    const moved: Recordings = new Map([...modelled, ['ruff', one({ 'system-prompt': 'x' })]])
    expect(firstRecordingDifference(modelled, moved)).toBe(
      'tree ruff: placements first-user-message became system-prompt',
    )
    expect(firstRecordingDifference(modelled, new Map([['nested', modelled.get('nested')!]]))).toBe(
      'tree ruff: not recorded for the new release',
    )
  })

  it('finds a difference exactly when the texts differ (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const said = firstRecordingDifference(
          new Map([['t', one({ p: a })]]),
          new Map([['t', one({ p: b })]]),
        )
        expect(said === undefined).toBe(a === b)
      }),
    )
  })
})
