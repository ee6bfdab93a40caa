import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { compileTemplate } from './index.js'

// Each key of a template gets a slot through a table shared by all compiles
// (sets by key length and last character, four ways each, a scan past that
// and a map past 32 keys). Whatever path a key takes, a template must list
// its keys once each in first-appearance order and insert each key's own
// value: these tests use keys that collide in the table's sets, outnumber
// its ways, pass the scan limit and exceed the length it shares, one
// template after another.

/** Keys of length 2 ending in `1`: all in one set of the table. */
const sameSet = ['a1', 'b1', 'c1', 'd1', 'e1', 'f1', 'g1', 'h1', 'i1', 'j1']

/** The template inserting `keys` in order, separated by `|`, and what it must render with each key's value `<key>`. */
function joined(keys: readonly string[]): {
  source: string
  expected: string
  values: Record<string, string>
} {
  const values = Object.fromEntries(keys.map((k) => [k, `<${k}>`]))
  return {
    source: keys.map((k) => `{{${k}}}`).join('|'),
    expected: keys.map((k) => `<${k}>`).join('|'),
    values,
  }
}

function firstAppearances(keys: readonly string[]): string[] {
  return [...new Set(keys)]
}

function check(keys: readonly string[], dialect: 'mustache' | 'bracket' = 'mustache'): void {
  const { source, expected, values } = joined(keys)
  const text = dialect === 'mustache' ? source : source.replaceAll('{{', '[').replaceAll('}}', ']')
  const template = compileTemplate(text, { dialect })
  expect(template.variables).toEqual(firstAppearances(keys))
  expect(template.render(values)).toBe(expected)
}

describe('key slots: every key gets its own value', () => {
  it('keys that share a set of the table, more of them than it has ways, each repeated', () => {
    check([...sameSet, ...[...sameSet].reverse(), 'c1', 'j1', 'a1'])
  })

  it('the same keys again in a later template, in another order', () => {
    check(sameSet.slice(0, 4))
    check(['e1', 'a1', 'f1', 'b1', 'a1', 'e1', 'c1', 'g1', 'd1', 'b1'])
    check(sameSet.slice(0, 4).reverse())
  })

  it('a key known to the table from an earlier template is a new variable of this one', () => {
    check(['a1', 'b1'])
    // `a1` and `b1` are in the table with the slots of the first template.
    check(['z1', 'b1', 'a1', 'b1'])
    check(['b1'])
  })

  it('more than 32 distinct keys, repeated after the 32nd', () => {
    const many = Array.from({ length: 45 }, (_, i) => `k${i}`)
    check([...many, 'k0', 'k31', 'k32', 'k33', 'k44', 'k7'])
  })

  it('more than 32 keys all in sets already full of this template', () => {
    // Two-character keys ending in `1`, then three-character keys ending in `2`: few sets, many keys.
    const letters = 'abcdefghijklmnopqrstuvwxyz'.split('')
    const keys = [...letters.map((l) => `${l}1`), ...letters.map((l) => `${l}x2`)]
    check([...keys, ...[...keys].reverse()])
  })

  it('keys longer than the table shares, alone and past 32 keys', () => {
    const long = (i: number) => `k${'x'.repeat(70)}${i}`
    check([long(1), long(2), long(1), 'short', long(2)])
    const many = Array.from({ length: 40 }, (_, i) => long(i))
    check([...many, long(0), long(39), long(33)])
  })

  it('namespaced keys in the bracket dialect, sharing sets and repeated', () => {
    const keys = ['ns:a1', 'ns:b1', 'ns:c1', 'ns:d1', 'ns:e1', 'ns:f1']
    check([...keys, ...keys, 'ns:a1'], 'bracket')
  })

  it('a key tested in a condition shares its slot with its insertions', () => {
    for (const key of sameSet) {
      const others = sameSet.filter((k) => k !== key)
      const source = `${others.map((k) => `{{${k}}}`).join('')}{{#if ${key}}}[{{${key}}}]{{/if}}`
      const values = Object.fromEntries(others.map((k) => [k, '']))
      expect(compileTemplate(source).render({ ...values, [key]: 'v' })).toBe('[v]')
      expect(compileTemplate(source).render({ ...values, [key]: null })).toBe('')
    }
  })

  // The sequences below each use a set of the table no other test here
  // touches (their own length and last character), so they start from an
  // empty set: what they check depends on which ways hold which keys.
  const rot = (head: string, tail: string) => `${head}_rot${tail}`

  it("a full set whose ways are partly this template's replaces only the others", () => {
    // Four keys fill a set; the next template reuses one of them, then brings
    // new keys that must each take a way not holding one of its own keys.
    const [a, b, c, d, e, f] = ['a', 'b', 'c', 'd', 'e', 'f'].map((h) => rot(h, 'z'))
    check([a!, b!, c!, d!])
    check([b!, e!, f!, f!, b!, e!])
    check([d!, a!, f!, c!, b!, d!, e!, a!])
  })

  it("a full set keeps this template's keys when the way last visited is one of them", () => {
    const [a, b, c, d, e, g] = ['a', 'b', 'c', 'd', 'e', 'g'].map((h) => rot(h, '_r'))
    check([a!, b!, c!, d!])
    check([d!, b!, e!, g!, d!, g!, b!])
  })

  it('a key of a full set is not mistaken for a longer key it begins', () => {
    // `…w` keys (the last set of their length for that character class) fill
    // their set; the fifth is not kept in the table, and `…wh`, one longer,
    // starts with it but is another key.
    const keys = ['a', 'b', 'c', 'd', 'e'].map((h) => rot(h, 'w'))
    const longer = `${keys[4]}h`
    check([...keys, longer, keys[4]!, longer])
  })

  it('any sequence of colliding keys, one template after another (property)', () => {
    // Few letters and lengths: many keys share sets, and templates share keys.
    const key = fc
      .tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.stringMatching(/^[0-9_]{0,2}$/), fc.boolean())
      .map(([head, tail, long]) => (long ? `${head}${'y'.repeat(64)}${tail}` : `${head}${tail}`))
    fc.assert(
      fc.property(fc.array(fc.array(key, { maxLength: 60 }), { minLength: 1, maxLength: 4 }), (templates) => {
        for (const keys of templates) check(keys)
      }),
      { numRuns: propertyRuns(200) },
    )
  })
})
