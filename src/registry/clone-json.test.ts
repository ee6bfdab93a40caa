import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { cloneJson } from './clone-json.js'

// Every assembly copies each tool's parameters with cloneJson: a copy that
// shares nothing mutable with its source, holds exactly the source's own
// keys, and keeps what JSON cannot hold by reference.

afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).polluted
})

describe('cloneJson', () => {
  it('copies JSON data deeply: equal, and no object or array shared', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = cloneJson(value)
        expect(copy).toEqual(value)
        const walk = (a: unknown, b: unknown): void => {
          if (a === null || typeof a !== 'object') return
          expect(b).not.toBe(a)
          for (const key of Object.keys(a)) walk((a as never)[key], (b as never)[key])
        }
        walk(value, copy)
      }),
    )
  })

  it('keeps arrays as arrays of their length, and null-prototype objects as plain data', () => {
    const sparse = [1, undefined, 3]
    const copy = cloneJson({ list: sparse, nested: [[1], { a: [2] }] })
    expect(Array.isArray(copy.list)).toBe(true)
    expect(copy.list).toHaveLength(3)
    expect(copy).toEqual({ list: [1, undefined, 3], nested: [[1], { a: [2] }] })
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, {
      type: 'object',
      inner: { x: 1 },
    })
    const bareCopy = cloneJson(bare)
    expect(bareCopy).not.toBe(bare)
    expect({ ...bareCopy }).toEqual({ type: 'object', inner: { x: 1 } })
    expect(bareCopy.inner).not.toBe(bare.inner)
  })

  it('gives back null, undefined and other primitives as they are, at the top as inside', () => {
    // A tool without parameters has `undefined` for them.
    for (const value of [null, undefined, 0, 'text', true]) {
      expect(cloneJson(value)).toBe(value)
      expect(cloneJson({ value }).value).toBe(value)
      expect(cloneJson([value])[0]).toBe(value)
    }
  })

  it('keeps class instances, dates and functions by reference', () => {
    const date = new Date(0)
    const fn = () => 1
    class Schema {
      type = 'object'
    }
    const schema = new Schema()
    const copy = cloneJson({ date, fn, schema })
    expect(copy.date).toBe(date)
    expect(copy.fn).toBe(fn)
    expect(copy.schema).toBe(schema)
  })

  it('copies only own keys even when Object.prototype carries an enumerable one', () => {
    const source = { type: 'object', properties: { path: { type: 'string' } } }
    ;(Object.prototype as Record<string, unknown>).polluted = 'yes'
    const copy = cloneJson(source)
    expect(Object.keys(copy)).toEqual(['type', 'properties'])
    expect(Object.keys(copy.properties.path)).toEqual(['type'])
    expect(Object.hasOwn(copy, 'polluted')).toBe(false)
    expect(copy).toEqual(source)
  })

  it('copies only own keys when the inherited key holds an object', () => {
    // An object-valued inherited key is the one a copy would also deep-copy into an own key.
    const source = { type: 'object', properties: { path: { type: 'string' } }, items: [{ a: 1 }] }
    ;(Object.prototype as Record<string, unknown>).polluted = { type: 'number' }
    const copy = cloneJson(source)
    expect(Object.keys(copy)).toEqual(['type', 'properties', 'items'])
    expect(Object.keys(copy.properties)).toEqual(['path'])
    expect(Object.keys(copy.properties.path)).toEqual(['type'])
    expect(Object.keys(copy.items[0]!)).toEqual(['a'])
    // Still a deep copy: nothing mutable shared.
    expect(copy.properties).not.toBe(source.properties)
    expect(copy.properties.path).not.toBe(source.properties.path)
    expect(copy.items).not.toBe(source.items)
    expect(copy.items[0]).not.toBe(source.items[0])
    delete (Object.prototype as Record<string, unknown>).polluted
    expect(copy).toEqual(source)
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
})
