import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Stability } from '../registry/types.js'
import {
  effectiveStability,
  effectiveStabilityOf,
  mostVolatile,
  stabilityOf,
  variableStability,
} from './stability.js'

const stabilities: Stability[] = ['static', 'session', 'turn']

describe('stability', () => {
  it('orders static < session < turn, whichever side is more volatile', () => {
    fc.assert(
      fc.property(fc.constantFrom(...stabilities), fc.constantFrom(...stabilities), (a, b) => {
        const expected = stabilities[Math.max(stabilities.indexOf(a), stabilities.indexOf(b))]
        expect(mostVolatile(a, b)).toBe(expected)
        expect(mostVolatile(b, a)).toBe(expected)
      }),
    )
  })

  it('reads a key from the stability map, defaults a known variable to session, ignores unknown keys', () => {
    const assembly = { variables: { cwd: '/p', date: '2031-01-01' }, stability: { date: 'turn' as const } }
    expect(variableStability(assembly, 'date')).toBe('turn')
    expect(variableStability(assembly, 'cwd')).toBe('session')
    expect(variableStability(assembly, 'missing')).toBeUndefined()
    expect(variableStability(assembly, 'constructor')).toBeUndefined()
    expect(variableStability(assembly, 'toString')).toBeUndefined()
  })

  it('takes the most volatile of the declared stability and every referenced key', () => {
    const assembly = {
      variables: { 'system:os': 'linux', 'git:branch': 'main', 'prompt:cwd': '/p' },
      stability: { 'system:os': 'static' as const, 'git:branch': 'turn' as const },
    }
    const bracket = (text: string, stability: Stability = 'static') =>
      effectiveStability({ text, dialect: 'bracket', stability }, assembly)
    expect(bracket('On [system:os].')).toEqual({ stability: 'static', turnKeys: [] })
    expect(bracket('In [prompt:cwd].')).toEqual({ stability: 'session', turnKeys: [] })
    expect(bracket('[if git:branch]on a branch[endif]')).toEqual({
      stability: 'turn',
      turnKeys: ['git:branch'],
    })
    expect(bracket('Plain text.', 'session')).toEqual({ stability: 'session', turnKeys: [] })
    // Lenient reading: an unclosed block still references its key.
    expect(bracket('[if git:branch] unclosed')).toEqual({ stability: 'turn', turnKeys: ['git:branch'] })
    // Mustache sections are read leniently too, so a malformed one does not throw here.
    expect(
      effectiveStability(
        { text: '{{ bad }} {{git:branch}}', dialect: 'mustache', stability: 'static' },
        assembly,
      ),
    ).toEqual({ stability: 'turn', turnKeys: ['git:branch'] })
  })

  it('defaults a section that declares nothing to static', () => {
    expect(stabilityOf(undefined, [], { variables: {}, stability: {} }).stability).toBe('static')
  })
})

describe('stability: the allocation-free reading agrees', () => {
  it('effectiveStabilityOf is stabilityOf().stability, the most volatile of the declared and the known keys (property)', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'e')
    const stability = fc.constantFrom(...stabilities)
    fc.assert(
      fc.property(
        fc.option(stability, { nil: undefined }),
        fc.array(key, { maxLength: 6 }),
        fc.dictionary(key, stability),
        fc.uniqueArray(key),
        (declared, keys, declaredStabilities, variables) => {
          const assembly = {
            variables: Object.fromEntries(variables.map((k) => [k, 'v'])),
            stability: declaredStabilities,
          }
          const own = keys
            .map((k) => declaredStabilities[k] ?? (variables.includes(k) ? 'session' : undefined))
            .filter((s): s is Stability => s !== undefined)
          const rank = Math.max(
            stabilities.indexOf(declared ?? 'static'),
            ...own.map((s) => stabilities.indexOf(s)),
          )
          const expected = stabilities[rank]!
          expect(effectiveStabilityOf(declared, keys, assembly)).toBe(expected)
          expect(stabilityOf(declared, keys, assembly)).toEqual({
            stability: expected,
            turnKeys: keys.filter((k) => declaredStabilities[k] === 'turn'),
          })
        },
      ),
    )
  })
})

describe('effectiveStabilityOf: keys past the list', () => {
  it('reads only the keys referenced, even when a variable is named "undefined"', () => {
    const assembly = { variables: { a: 'x', undefined: 'y' }, stability: { undefined: 'turn' as const } }
    expect(effectiveStabilityOf('static', ['a'], assembly)).toBe('session')
    expect(stabilityOf('static', ['a'], assembly)).toEqual({ stability: 'session', turnKeys: [] })
  })
})
