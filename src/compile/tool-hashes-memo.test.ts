import { describe, expect, it } from 'vitest'
import type { ToolSchema } from '../registry/types.js'
import { canonicalJson, type HashFunction } from '../shared/hash.js'
import { countingHash, sha256 } from './counting.test-helper.js'
import { hashTools } from './tool-hashes.js'

// An unchanged tool list is not hashed again (issue 10's linear scale: a
// harness recompiles the same tools on every turn), and a changed schema is
// hashed anew, once. Both are observed through the hash function, which
// `hashTools` takes injected: each test counts the texts it is asked to hash.
// `hashText` keeps a memo of its own by text, which would hide a tool memo
// that missed; `forget` pushes that memo's entries out first (checked with a
// probe), so what is counted is the tool memos alone.

const expected = (schema: unknown) => `sha256:${sha256(canonicalJson(schema))}`

class Parameters {
  type = 'object'
  required = ['path']
}

/** Schemas of every shape canonical JSON reads: nested objects and arrays, each kind of leaf, odd prototypes. */
function shapes(): ToolSchema[] {
  const bare = Object.create(null) as Record<string, unknown>
  bare.type = 'object'
  // biome-ignore lint/suspicious/noProto: on a null-prototype object `__proto__` is a key like any other, and must be hashed as one
  bare.__proto__ = 'a key like any other'
  bare.properties = { path: { type: 'string' } }
  return [
    {
      name: 'read',
      description: 'Reads a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
    {
      name: 'edit',
      parameters: {
        type: 'object',
        properties: {
          edits: {
            type: 'array',
            items: [{ type: 'string' }, { type: 'number', minimum: 0 }, [1, [2, [3]]]],
          },
          flags: [true, false, null, 0, -1.5, '', 'x'],
        },
        required: ['edits'],
        additionalProperties: false,
      },
    },
    { name: 'empty', parameters: {} },
    { name: 'lists', parameters: { a: [], b: [[]], c: [{}], d: [null], e: { f: {} } } },
    { name: 'gaps', description: undefined, parameters: { type: 'object', skipped: undefined, kept: null } },
    { name: 'bare', parameters: bare },
    { name: 'classy', parameters: new Parameters() as unknown as Record<string, unknown> },
  ]
}

/** The same schemas as an assembly hands them over: fresh objects with the same data. */
function copies(): ToolSchema[] {
  return shapes()
}

describe('hashTools memos', () => {
  it('hashes nothing again for an unchanged tool list of every shape, copied afresh', () => {
    const { hash, hashed, forget } = countingHash()
    const first = hashTools(shapes(), hash)
    expect(first.tools.map((t) => t.hash)).toEqual(shapes().map(expected))
    forget()
    const again = hashTools(copies(), hash)
    expect(hashed).toEqual([])
    expect(again.tools.map((t) => t.hash)).toEqual(first.tools.map((t) => t.hash))
    expect(again.toolsHash).toBe(first.toolsHash)
  })

  it('hashes nothing again for each tool alone, at another position, or in another order', () => {
    const { hash, hashed, forget } = countingHash()
    hashTools(shapes(), hash)
    forget()
    const all = copies()
    for (let i = 0; i < all.length; i++) {
      expect(hashTools([copies()[i]!], hash).tools[0]!.hash).toBe(expected(all[i]))
    }
    const reversed = hashTools(copies().reverse(), hash)
    expect(reversed.tools.map((t) => t.hash)).toEqual(copies().reverse().map(expected))
    expect(hashed.filter((text) => !text.startsWith('[{"hash"'))).toEqual([])
  })

  it('hashes a schema changed anywhere anew, once, and never takes an earlier hash for it', () => {
    const changes: ((schema: ToolSchema) => void)[] = [
      (s) => {
        s.description = 'Reads a file, changed.'
      },
      (s) => {
        ;(s.parameters.properties as Record<string, Record<string, unknown>>).path!.type = 'number'
      },
      (s) => {
        s.parameters.extra = 1
      },
      (s) => {
        delete s.parameters.properties
      },
      (s) => {
        s.parameters.properties = []
      },
      (s) => {
        s.parameters.properties = null
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, more: { type: 'string' } }
      },
      (s) => {
        s.parameters.properties = { path: {} }
      },
      (s) => {
        s.parameters.properties = { path: ['string'] }
      },
      (s) => {
        s.parameters.properties = { path: { type: ['string'] } }
      },
      (s) => {
        s.parameters.type = 0 as unknown as string
      },
      (s) => {
        s.parameters.type = { object: true } as unknown as string
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: [true] }
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: [true, null] }
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: { 0: true } }
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: [[true]] }
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: [{ on: true }] }
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: [{ on: false }] }
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: [[false]] }
      },
      (s) => {
        s.parameters.properties = { path: { type: 'string' }, flags: [{}, {}] }
      },
    ]
    const base = (): ToolSchema => ({
      name: 'read',
      description: 'Reads a file.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, flags: [{ on: true }, [true]] },
      },
    })
    changes.forEach((change, c) => {
      const { hash, hashed, forget } = countingHash()
      // Two other variants of the same name are known: the change must not be taken for either.
      const neighbours = [changes[(c + 1) % changes.length]!, changes[(c + 2) % changes.length]!]
      hashTools([base()], hash)
      for (const other of neighbours) {
        const variant = base()
        other(variant)
        hashTools([variant], hash)
      }
      forget()
      const changed = base()
      change(changed)
      expect(hashTools([changed], hash).tools[0]!.hash).toBe(expected(changed))
      expect(hashed.filter((text) => !text.startsWith('[{"hash"'))).toEqual([canonicalJson(changed)])
      hashed.length = 0
      expect(hashTools([base()], hash).tools[0]!.hash).toBe(expected(base()))
      const copy = base()
      change(copy)
      expect(hashTools([copy], hash).tools[0]!.hash).toBe(expected(changed))
      expect(hashed.filter((text) => !text.startsWith('[{"hash"'))).toEqual([])
    })
  })

  it('hashes a new schema once, and a change in place anew', () => {
    const { hash, hashed, forget } = countingHash()
    const schema = shapes()[1]!
    hashTools([schema], hash)
    forget()
    const items = (schema.parameters.properties as { edits: { items: unknown[] } }).edits.items
    items.push('more')
    expect(hashTools([schema], hash).tools[0]!.hash).toBe(expected(schema))
    expect(hashed.filter((text) => text === canonicalJson(schema))).toHaveLength(1)
    hashed.length = 0
    expect(hashTools([schema], hash).tools[0]!.hash).toBe(expected(schema))
    expect(hashed).toEqual([])
  })

  it('keeps the last four schemas of a name', () => {
    const { hash, hashed, forget } = countingHash()
    const version = (v: number): ToolSchema => ({ name: 'x', parameters: { v } })
    for (let v = 1; v <= 5; v++) hashTools([version(v)], hash)
    forget()
    for (let v = 5; v >= 2; v--)
      expect(hashTools([version(v)], hash).tools[0]!.hash).toBe(expected(version(v)))
    for (let v = 2; v <= 5; v++)
      expect(hashTools([version(v)], hash).tools[0]!.hash).toBe(expected(version(v)))
    expect(hashed.filter((text) => !text.startsWith('[{"hash"'))).toEqual([])
    expect(hashTools([version(1)], hash).tools[0]!.hash).toBe(expected(version(1)))
    expect(hashed.filter((text) => !text.startsWith('[{"hash"'))).toEqual([canonicalJson(version(1))])
  })

  it('reads only own keys, and still finds an unchanged schema, while Object.prototype has an enumerable key', () => {
    const { hash, hashed, forget } = countingHash()
    hashTools(shapes(), hash)
    forget()
    const prototype = Object.prototype as Record<string, unknown>
    prototype.polluted = 'inherited'
    try {
      const again = hashTools(copies(), hash)
      expect(again.tools.map((t) => t.hash)).toEqual(shapes().map(expected))
      expect(hashed).toEqual([])
    } finally {
      delete prototype.polluted
    }
  })

  it('hashes a tool whose name is not a string by its canonical JSON, each time', () => {
    const { hash } = countingHash()
    for (const name of [42, undefined, null, { first: 'x' }]) {
      const odd = () => ({ name, parameters: { type: 'object' } }) as unknown as ToolSchema
      expect(hashTools([odd()], hash).tools[0]!.hash).toBe(expected(odd()))
      expect(hashTools([odd(), odd()], hash).tools.map((t) => t.hash)).toEqual([
        expected(odd()),
        expected(odd()),
      ])
    }
  })

  it('lets go of the records of positions past the end of a shorter list', () => {
    // A record keeps its schema's data alive: once the list is shorter, only the memo by name
    // (bounded) may still hold it, and past that bound the schema is hashed anew.
    const { hash, hashed, forget } = countingHash()
    const a = (): ToolSchema => ({ name: 'a', parameters: { a: 1 } })
    const b = (): ToolSchema => ({ name: 'b', parameters: { b: 1 } })
    hashTools([a(), b()], hash)
    hashTools([a()], hash)
    // More names than the memo by name holds push b out of it.
    for (let i = 0; i < 2100; i++) hashTools([{ name: `other ${i}`, parameters: {} }], hash)
    forget()
    expect(hashTools([a(), b()], hash).tools.map((t) => t.hash)).toEqual([expected(a()), expected(b())])
    expect(hashed.filter((text) => !text.startsWith('[{"hash"'))).toEqual([
      canonicalJson(a()),
      canonicalJson(b()),
    ])
  })

  it('reads only own keys of an object whose prototype has enumerable keys', () => {
    const { hash, hashed, forget } = countingHash()
    const inherited = (): ToolSchema => {
      const parameters = Object.create({ inherited: 'not read' }) as Record<string, unknown>
      parameters.type = 'object'
      return { name: 'odd', parameters }
    }
    expect(hashTools([inherited()], hash).tools[0]!.hash).toBe(
      expected({ name: 'odd', parameters: { type: 'object' } }),
    )
    forget()
    expect(hashTools([inherited()], hash).tools[0]!.hash).toBe(
      expected({ name: 'odd', parameters: { type: 'object' } }),
    )
    expect(hashed).toEqual([])
  })
})

describe('hashTools list memos', () => {
  const tools = (n: number, tag = ''): ToolSchema[] =>
    Array.from({ length: n }, (_, i) => ({ name: `t${i}${tag}`, parameters: { tag, i } }))
  const listText = (schemas: ToolSchema[]) =>
    canonicalJson(schemas.map((s) => ({ name: s.name, hash: expected(s) })))

  it('hashes an unchanged list of names and hashes once, and each list that differs anew', () => {
    const { hash, hashed, forget } = countingHash()
    const lists = [tools(3), tools(2), tools(3, 'b'), tools(0), [...tools(3)].reverse(), tools(4)]
    const first = lists.map((list) => hashTools(list, hash).toolsHash)
    lists.forEach((list, i) => {
      expect(first[i]).toBe(`sha256:${sha256(listText(list))}`)
    })
    expect(new Set(first).size).toBe(lists.length)
    forget()
    expect(
      lists.map(
        (list) =>
          hashTools(
            list.map((s) => structuredClone(s)),
            hash,
          ).toolsHash,
      ),
    ).toEqual(first)
    expect(hashed).toEqual([])
  })

  it('keeps the last eight lists, and older lists by their names and hashes', () => {
    const { hash, hashed, forget } = countingHash()
    const lists = Array.from({ length: 12 }, (_, i) => tools(1 + (i % 3), `v${i}`))
    const digests = lists.map((list) => hashTools(list, hash).toolsHash)
    forget()
    // The newest eight are found without a key; the older ones by their key; none is hashed again.
    for (let i = lists.length - 1; i >= 0; i--) expect(hashTools(lists[i]!, hash).toolsHash).toBe(digests[i])
    expect(hashed).toEqual([])
  })

  it('tells apart lists whose tools have the same hashes but other names (a hash function that collides)', () => {
    // Only the list text is hashed truly: every tool gets the same hash.
    const hash: HashFunction = (text) => (text.startsWith('[') ? sha256(text) : 'same')
    const named = (name: string): ToolSchema[] => [{ name, parameters: {} }]
    const lists = [named('ab'), named('cd'), named('ab')]
    const digests = lists.map((list) => hashTools(list, hash))
    for (const [i, { tools, toolsHash }] of digests.entries()) {
      expect(tools[0]!.hash).toBe('sha256:same')
      expect(toolsHash).toBe(
        `sha256:${sha256(canonicalJson([{ name: lists[i]![0]!.name, hash: 'sha256:same' }]))}`,
      )
    }
    expect(digests[1]!.toolsHash).not.toBe(digests[0]!.toolsHash)
  })

  it('tells apart lists whose names and hashes join to the same text', () => {
    const { hash } = countingHash()
    const a: ToolSchema[] = [
      { name: 'ab', parameters: {} },
      { name: 'c', parameters: {} },
    ]
    const b: ToolSchema[] = [
      { name: 'a', parameters: {} },
      { name: 'bc', parameters: {} },
    ]
    const da = hashTools(a, hash).toolsHash
    const db = hashTools(b, hash).toolsHash
    expect(da).toBe(`sha256:${sha256(listText(a))}`)
    expect(db).toBe(`sha256:${sha256(listText(b))}`)
    // Twelve other lists push both out of the recent lists: only the keyed memo can answer now.
    for (let i = 0; i < 12; i++) hashTools(tools(1, `w${i}`), hash)
    expect(hashTools(b, hash).toolsHash).toBe(db)
    expect(hashTools(a, hash).toolsHash).toBe(da)
  })
})
