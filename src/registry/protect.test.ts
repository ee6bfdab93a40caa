import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { restoreProtected } from './protect.js'

type Entry = { name: string; v: number }

describe('restoreProtected', () => {
  it('keeps adjacent protected entries in canonical order', () => {
    const canonical = ['a', 'p1', 'p2', 'b'].map((name) => ({ name, v: 0 }))
    const result = [
      { name: 'b', v: 1 },
      { name: 'a', v: 1 },
    ]
    expect(restoreProtected(canonical, result, new Set(['p1', 'p2'])).map((e) => e.name)).toEqual([
      'p1',
      'p2',
      'b',
      'a',
    ])
  })

  it('property: protected names come back exactly as canonical, unprotected survivors keep the waterfall’s order', () => {
    const names = fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 7 })
    fc.assert(
      fc.property(names, names, names, (canonicalNames, resultNames, protectedList) => {
        const canonical: Entry[] = canonicalNames.map((name) => ({ name, v: 0 }))
        const result: Entry[] = resultNames.map((name) => ({ name, v: 1 }))
        const protectedNames = new Set(protectedList)
        const out = restoreProtected(canonical, result, protectedNames)
        // Every protected name: present iff canonically present, with the canonical definition.
        for (const name of protectedNames) {
          const want = canonical.find((e) => e.name === name)
          const got = out.filter((e) => e.name === name)
          expect(got).toEqual(want === undefined ? [] : [want])
        }
        // Unprotected entries of the result are untouched and in the same order.
        expect(out.filter((e) => !protectedNames.has(e.name))).toEqual(
          result.filter((e) => !protectedNames.has(e.name)),
        )
        // Protected entries keep canonical order among themselves.
        const protectedOut = out.filter((e) => protectedNames.has(e.name)).map((e) => e.name)
        expect(protectedOut).toEqual(canonicalNames.filter((n) => protectedNames.has(n)))
      }),
    )
  })

  it('returns copies: mutating the result leaves the canonical snapshot alone', () => {
    const canonical = [{ name: 'p', v: 0 }]
    const out = restoreProtected(canonical, [], new Set(['p']))
    out[0]!.v = 9
    expect(canonical[0]!.v).toBe(0)
  })
})
