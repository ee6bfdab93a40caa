import { describe, expect, it } from 'vitest'
import type { ToolSchema } from '../registry/types.js'
import { canonicalJson } from '../shared/hash.js'
import { countingHash, sha256 } from './counting.test-helper.js'
import { hashTools } from './tool-hashes.js'

// A schema equal to a known one takes its hash without being stringified
// (tool-hashes.ts compares it with a record of the known one); any change,
// in an object of any kind, must be hashed anew. The objects of a schema are
// read in one of two ways, by `for…in` (plain and null-prototype objects) or
// by `Object.keys` (other prototypes, or any object while Object.prototype
// has an enumerable key), so every change here is made in each kind.

const expected = (schema: unknown) => `sha256:${sha256(canonicalJson(schema))}`

class Shape {}

type Kind = 'plain' | 'bare' | 'classy' | 'polluted'
const KINDS: Kind[] = ['plain', 'bare', 'classy', 'polluted']

/** `value` with every object rebuilt as `kind` makes it (same own keys, same order). */
function as<T>(kind: Kind, value: T): T {
  if (Array.isArray(value)) return value.map((item) => as(kind, item)) as T
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> =
    kind === 'bare' ? Object.create(null) : kind === 'classy' ? new Shape() : {}
  for (const key of Object.keys(value)) out[key] = as(kind, (value as Record<string, unknown>)[key])
  return out as T
}

/** Runs `body` for each kind, with Object.prototype given an enumerable key for `polluted`. */
function eachKind(body: (kind: Kind) => void): void {
  for (const kind of KINDS) {
    const prototype = Object.prototype as Record<string, unknown>
    if (kind === 'polluted') prototype.polluted = 'inherited'
    try {
      body(kind)
    } finally {
      delete prototype.polluted
    }
  }
}

const base = () => ({
  name: 'read',
  description: 'Reads a file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, empty: {} },
    list: [{}, 'x', { on: true }, [1]],
    last: {},
  },
})
type Base = ReturnType<typeof base>

/** Changes that keep every other part of the schema: leaves, keys renamed in place, objects turned into primitives. */
const CHANGES: [string, (s: Base, kind: Kind) => void][] = [
  [
    'a top leaf',
    (s) => {
      s.description = 'Reads.'
    },
  ],
  [
    'a leaf read by its key',
    (s) => {
      s.parameters.type = 'array'
    },
  ],
  [
    'a nested leaf',
    (s) => {
      s.parameters.properties.path.type = 'number'
    },
  ],
  [
    'a key renamed in place',
    (s, kind) => {
      const { properties, list, last } = s.parameters
      s.parameters = as(kind, { kind: 'object', properties, list, last }) as never
    },
  ],
  [
    'a nested key renamed in place',
    (s, kind) => {
      s.parameters.properties = as(kind, { path: { kind: 'string' }, empty: {} }) as never
    },
  ],
  ...[0, '', false, true, null].flatMap((leaf): [string, (s: Base) => void][] => [
    [
      `an empty object turned into ${JSON.stringify(leaf)}`,
      (s) => {
        s.parameters.last = leaf as never
      },
    ],
    [
      `a nested empty object turned into ${JSON.stringify(leaf)}`,
      (s) => {
        s.parameters.properties.empty = leaf as never
      },
    ],
    [
      `an empty object in a list turned into ${JSON.stringify(leaf)}`,
      (s) => {
        s.parameters.list[0] = leaf as never
      },
    ],
    [
      `an object turned into ${JSON.stringify(leaf)}`,
      (s) => {
        s.parameters.properties.path = leaf as never
      },
    ],
  ]),
  [
    'an empty object turned into a list',
    (s) => {
      s.parameters.last = [] as never
    },
  ],
  [
    'a list item turned into a list',
    (s) => {
      s.parameters.list[1] = ['x'] as never
    },
  ],
  [
    'a key gone',
    (s) => {
      delete (s.parameters as Partial<Base['parameters']>).last
    },
  ],
  [
    'a key added',
    (s) => {
      ;(s.parameters as Record<string, unknown>).more = 1
    },
  ],
]

describe('hashTools on a schema like a known one', () => {
  it('hashes a change anew, once, in every kind of object', () => {
    eachKind((kind) => {
      for (const [what, change] of CHANGES) {
        const { hash, hashed } = countingHash()
        const known = as(kind, base())
        expect(hashTools([known as ToolSchema], hash).tools[0]!.hash, `${kind}: the known one`).toBe(
          expected(known),
        )
        hashed.length = 0
        const changed = as(kind, base())
        change(changed, kind)
        expect(hashTools([changed as ToolSchema], hash).tools[0]!.hash, `${kind}: ${what}`).toBe(
          expected(changed),
        )
        expect(hashed.filter((text) => !text.startsWith('[{"hash"'))).toEqual([canonicalJson(changed)])
        // And the known one, copied afresh, still takes its own hash.
        expect(hashTools([as(kind, base()) as ToolSchema], hash).tools[0]!.hash).toBe(expected(known))
      }
    })
  })

  it('hashes what JSON turns into null in a list as JSON does, and finds it again', () => {
    eachKind((kind) => {
      const { hash, hashed } = countingHash()
      const odd = () =>
        as(kind, { name: 'odd', parameters: { list: [1, undefined, () => 1, Symbol('s'), 'x'] } })
      const digest = hashTools([odd() as ToolSchema], hash).tools[0]!.hash
      expect(digest).toBe(expected({ name: 'odd', parameters: { list: [1, null, null, null, 'x'] } }))
      hashed.length = 0
      expect(hashTools([odd() as ToolSchema], hash).tools[0]!.hash).toBe(digest)
    })
  })

  it('refuses a cycle through a list as JSON does', () => {
    const list: unknown[] = [1]
    list.push([list])
    const cyclic: ToolSchema = { name: 'c', parameters: { list } }
    expect(() => JSON.stringify(cyclic)).toThrow(TypeError)
    expect(() => hashTools([cyclic])).toThrow(TypeError)
  })
})
