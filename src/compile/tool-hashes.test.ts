import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ToolSchema } from '../registry/types.js'
import { canonicalJson, hashText } from '../shared/hash.js'
import { hashTools } from './tool-hashes.js'

/** What a tool hash must be, computed without any memo. */
const expected = (schema: ToolSchema): string => hashText(canonicalJson(schema))

/** A deep copy with every object's keys in reverse order. */
function reversed<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reversed) as T
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).reverse()) out[key] = reversed((value as Record<string, unknown>)[key])
  return out as T
}

describe('hashTools', () => {
  it('gives every schema the hash of its canonical JSON, however often its name recurs', () => {
    const parameters = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 4,
    })
    const schema = fc.record({
      name: fc.constantFrom('a', 'b', 'c'),
      description: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
      parameters,
    })
    // Each step compiles a new schema, a copy of an earlier one, that copy with its keys
    // reordered, or an earlier one itself after a change in place.
    const step = fc.tuple(
      schema,
      fc.nat(),
      fc.constantFrom('new', 'copy', 'reordered', 'mutated'),
      fc.jsonValue({ maxDepth: 1 }),
    )
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const seen: ToolSchema[] = []
        for (const [fresh, pick, kind, value] of steps) {
          const earlier = seen[pick % Math.max(1, seen.length)]
          let tool: ToolSchema = fresh
          if (earlier !== undefined && kind === 'copy') tool = structuredClone(earlier)
          if (earlier !== undefined && kind === 'reordered') tool = reversed(earlier)
          if (earlier !== undefined && kind === 'mutated') {
            earlier.parameters[`k${pick % 3}`] = value
            tool = earlier
          }
          seen.push(tool)
          expect(hashTools([tool]).tools[0]!.hash).toBe(expected(tool))
        }
      }),
    )
  })

  it('property: lists whose tools move, repeat, change or go give every tool its own hash', () => {
    // Each position remembers the record it last matched: a list whose tools shift, or whose
    // position now holds another schema of the same name, must still hash each tool by its content.
    const schema = fc.record({
      name: fc.constantFrom('a', 'b', 'c'),
      description: fc.constantFrom('one', 'two'),
      parameters: fc.constantFrom({ type: 'object' }, { type: 'object', required: ['path'] }),
    })
    fc.assert(
      fc.property(fc.array(fc.array(schema, { maxLength: 5 }), { minLength: 1, maxLength: 8 }), (lists) => {
        for (const list of lists) {
          const { tools, toolsHash } = hashTools(list.map((t) => structuredClone(t)))
          expect(tools.map((t) => t.hash)).toEqual(list.map(expected))
          expect(toolsHash).toBe(hashText(canonicalJson(tools.map(({ name, hash }) => ({ name, hash })))))
        }
      }),
    )
  })

  it('notices a change deep in a schema changed in place, and its undoing', () => {
    const tool: ToolSchema = {
      name: 'edit',
      parameters: { type: 'object', properties: { edits: { type: 'array', items: [{ type: 'string' }] } } },
    }
    const before = hashTools([tool]).tools[0]!.hash
    const items = (tool.parameters.properties as { edits: { items: { type: string }[] } }).edits.items
    items[0]!.type = 'number'
    const after = hashTools([tool]).tools[0]!.hash
    expect(after).toBe(expected(tool))
    expect(after).not.toBe(before)
    items.push({ type: 'string' })
    expect(hashTools([tool]).tools[0]!.hash).toBe(expected(tool))
    items.length = 1
    items[0]!.type = 'string'
    expect(hashTools([tool]).tools[0]!.hash).toBe(before)
  })

  it('treats a key holding undefined as absent, as JSON does', () => {
    const bare: ToolSchema = { name: 'u', parameters: { type: 'object' } }
    const withUndefined: ToolSchema = { name: 'u', description: undefined, parameters: { type: 'object' } }
    expect(hashTools([withUndefined]).tools[0]!.hash).toBe(hashTools([bare]).tools[0]!.hash)
    expect(hashTools([bare]).tools[0]!.hash).toBe(expected(bare))
  })

  it('hashes what JSON cannot copy plainly as before, and refuses a cycle as JSON does', () => {
    const dated: ToolSchema = { name: 'd', parameters: { since: new Date(0) } }
    const asString: ToolSchema = { name: 'd', parameters: { since: new Date(0).toJSON() } }
    expect(hashTools([dated]).tools[0]!.hash).toBe(expected(dated))
    expect(hashTools([asString]).tools[0]!.hash).toBe(expected(asString))
    const cyclic: ToolSchema = { name: 'c', parameters: {} }
    cyclic.parameters.self = cyclic.parameters
    expect(() => hashTools([cyclic])).toThrow(TypeError)
  })

  it('hashes the list of names and hashes, in order', () => {
    const a: ToolSchema = { name: 'a', parameters: {} }
    const b: ToolSchema = { name: 'b', parameters: { type: 'object' } }
    const ab = hashTools([a, b])
    const list = ab.tools.map(({ name, hash }) => ({ name, hash }))
    expect(ab.toolsHash).toBe(hashText(canonicalJson(list)))
    expect(hashTools([structuredClone(a), structuredClone(b)]).toolsHash).toBe(ab.toolsHash)
    expect(hashTools([b, a]).toolsHash).not.toBe(ab.toolsHash)
  })
})
