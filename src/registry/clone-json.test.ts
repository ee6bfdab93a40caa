import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cloneJson } from './clone-json.js'

/** Every object and array reachable from `value`. */
function containers(value: unknown, out: object[] = []): object[] {
  if (value === null || typeof value !== 'object') return out
  out.push(value)
  for (const v of Object.values(value)) containers(v, out)
  return out
}

describe('cloneJson', () => {
  it('property: an equal copy that shares no object or array with the original', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const copy = cloneJson(value)
        expect(copy).toStrictEqual(value)
        const originals = new Set(containers(value))
        for (const c of containers(copy)) expect(originals.has(c)).toBe(false)
      }),
    )
  })

  it('keeps an own __proto__ key a key, and a null-prototype object null-prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"type": "string"}, "a": [1]}') as Record<string, unknown>
    const copy = cloneJson(parsed)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__', 'a'])
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ type: 'string' })
    const bare = Object.assign(Object.create(null), { nested: { x: 1 } })
    const bareCopy = cloneJson(bare)
    expect(Object.getPrototypeOf(bareCopy)).toBe(null)
    expect(bareCopy.nested).toEqual({ x: 1 })
    expect(bareCopy.nested).not.toBe(bare.nested)
  })

  it('copies own keys only while Object.prototype has an enumerable key', () => {
    Object.defineProperty(Object.prototype, 'polluted', {
      value: { x: 1 },
      enumerable: true,
      configurable: true,
      writable: true,
    })
    try {
      const copy = cloneJson({ a: { b: 1 } })
      expect(Object.hasOwn(copy, 'polluted')).toBe(false)
      expect(Object.hasOwn(copy.a, 'polluted')).toBe(false)
      expect(copy).toEqual({ a: { b: 1 } })
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted
    }
  })

  it('keeps class instances and functions by reference', () => {
    const when = new Date(0)
    const fn = () => 1
    const copy = cloneJson({ when, fn, list: [when] })
    expect(copy.when).toBe(when)
    expect(copy.fn).toBe(fn)
    expect(copy.list[0]).toBe(when)
  })
})
