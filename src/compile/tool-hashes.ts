import type { ToolSchema } from '../registry/types.js'
import { canonicalJson, type HashFunction, hashText, sha256Hex } from '../shared/hash.js'
import { TextCache } from '../shared/text-cache.js'
import type { CompiledTool } from './types.js'

/**
 * A private record of what canonical JSON reads of a value, flattened in
 * pre-order: a primitive is itself; an array is ARRAY, its length, then its
 * items; an object is OBJECT, the number of its own keys that hold a value,
 * then each such key (in `Object.keys` order) and its value. One flat array
 * per schema: comparing a schema with it is a walk along both, with no
 * allocation and few pointers to chase.
 */
type Tape = unknown[]

const ARRAY = { marker: 'array' }
const OBJECT = { marker: 'object' }

/** No record of data nested deeper: a cycle must not recurse forever (JSON then reports it). */
const MAX_DEPTH = 100

/**
 * Appends the record of `value` to `tape`; false for what JSON would drop,
 * convert or refuse (functions, symbols, BigInts, `undefined` in an array, a
 * cycle), for which no record can stand.
 */
function record(value: unknown, depth: number, tape: Tape): boolean {
  if (value === null) {
    tape.push(null)
    return true
  }
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      tape.push(value)
      return true
    case 'object':
      break
    default:
      return false
  }
  if (depth >= MAX_DEPTH) return false
  if (Array.isArray(value)) {
    tape.push(ARRAY, value.length)
    for (let i = 0; i < value.length; i++) if (!record(value[i], depth + 1, tape)) return false
    return true
  }
  tape.push(OBJECT, 0)
  const countAt = tape.length - 1
  let count = 0
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key]
    if (v === undefined) continue
    tape.push(key)
    if (!record(v, depth + 1, tape)) return false
    count++
  }
  tape[countAt] = count
  return true
}

/** The record as plain data again, for `canonicalJson` (null prototypes: `__proto__` stays a key). */
function plainOf(tape: Tape): unknown {
  let at = 0
  const read = (): unknown => {
    const head = tape[at++]
    if (head === ARRAY) {
      const length = tape[at++] as number
      const items: unknown[] = []
      for (let i = 0; i < length; i++) items.push(read())
      return items
    }
    if (head !== OBJECT) return head
    const count = tape[at++] as number
    const out = Object.create(null) as Record<string, unknown>
    for (let i = 0; i < count; i++) {
      const key = tape[at++] as string
      out[key] = read()
    }
    return out
  }
  return read()
}

/** Whether `Object.prototype` has no enumerable key, so `for…in` over a plain object reads exactly its own keys. */
let plainPrototype = true

/**
 * Where the record of `value` ends when `value` has the same canonical JSON
 * as the record starting at `tape[at]` (hence the same hash), else -1.
 * Canonical JSON reads only `Array.isArray`, `Object.keys` and the values of
 * those keys, so this reads exactly those, requiring the keys in the
 * record's order. Objects whose prototype adds no enumerable key are read
 * with `for…in` (no key array, and V8 reads each value by its field index);
 * others through `Object.keys`. A leaf (most of a schema) is compared in
 * place, without a call, and the position stays a local. Anything doubtful
 * (keys in another order, NaN, a function) answers -1, which only costs the
 * slow path.
 */
function walk(value: unknown, tape: Tape, at: number): number {
  const head = tape[at++]
  if (head !== OBJECT && head !== ARRAY) return value === head ? at : -1
  if (typeof value !== 'object' || value === null) return -1
  if (head === ARRAY) {
    if (!Array.isArray(value) || value.length !== tape[at++]) return -1
    for (let i = 0; i < value.length; i++) {
      const v = value[i]
      const h = tape[at]
      if (h === OBJECT || h === ARRAY) {
        at = walk(v, tape, at)
        if (at < 0) return -1
      } else if (v === h) at++
      else return -1
    }
    return at
  }
  if (Array.isArray(value)) return -1
  const count = tape[at++] as number
  let matched = 0
  const proto = Object.getPrototypeOf(value)
  const keys =
    proto === null || (proto === Object.prototype && plainPrototype) ? undefined : Object.keys(value)
  if (keys === undefined) {
    for (const key in value) {
      const v = (value as Record<string, unknown>)[key]
      if (v === undefined) continue
      if (matched === count || key !== tape[at]) return -1
      const h = tape[at + 1]
      if (h === OBJECT || h === ARRAY) {
        at = walk(v, tape, at + 1)
        if (at < 0) return -1
      } else if (v === h) at += 2
      else return -1
      matched++
    }
  } else {
    for (const key of keys) {
      const v = (value as Record<string, unknown>)[key]
      if (v === undefined) continue
      if (matched === count || key !== tape[at]) return -1
      at = walk(v, tape, at + 1)
      if (at < 0) return -1
      matched++
    }
  }
  return matched === count ? at : -1
}

/** Whether `value` matches `tape` from its start. */
function sameAsRecord(value: unknown, tape: Tape): boolean {
  return walk(value, tape, 0) === tape.length
}

interface KnownTool {
  name: string
  tape: Tape
  hash: string
}

/** A few schemas per tool name (a name rarely has more than one at a time). */
const VARIANTS_PER_NAME = 4

interface ToolMemos {
  /** Known schemas by tool name: a fresh clone of one is recognised by a walk, not a stringify. */
  byName: TextCache<KnownTool[]>
  /** The last tool lists hashed: their names and tool hashes, and the digest. */
  lists: { names: string[]; hashes: string[]; digest: string }[]
  /** Older list digests by their names and hashes joined. */
  listsByKey: TextCache<string>
  /** The record each position of the last list matched or made: an unchanged list is checked without a lookup by name. */
  atPosition: (KnownTool | undefined)[]
}

const memos = new WeakMap<HashFunction, ToolMemos>()

function memosFor(hash: HashFunction): ToolMemos {
  let found = memos.get(hash)
  if (found === undefined) {
    found = {
      byName: new TextCache(1024),
      lists: [],
      listsByKey: new TextCache(256),
      atPosition: [],
    }
    memos.set(hash, found)
  }
  return found
}

/**
 * The hash of a tool's canonical JSON. An assembly clones every schema, so
 * identity cannot find an unchanged one; instead the last few schemas of each
 * tool name are kept as private records (tapes) and a schema equal to one (a
 * walk over its data, cheaper than stringifying it) takes its hash. A schema
 * changed in place no longer equals its record, so it is hashed anew.
 */
function toolHash(schema: ToolSchema, position: number, memo: ToolMemos, hash: HashFunction): string {
  const named = typeof schema.name === 'string'
  const last = memo.atPosition[position]
  if (named && last !== undefined && last.name === schema.name && sameAsRecord(schema, last.tape))
    return last.hash
  const known = named ? memo.byName.get(schema.name) : undefined
  if (known !== undefined) {
    for (let i = known.length - 1; i >= 0; i--) {
      if (sameAsRecord(schema, known[i]!.tape)) {
        memo.atPosition[position] = known[i]!
        return known[i]!.hash
      }
    }
  }
  const tape: Tape = []
  if (!record(schema, 0, tape)) {
    // What JSON cannot hold (a cycle, a BigInt) fails as JSON reports it.
    JSON.stringify(schema)
    return hashText(canonicalJson(schema), hash)
  }
  // Hashed from the record, so the stored hash is the record's by construction.
  const digest = hashText(canonicalJson(plainOf(tape)), hash)
  if (named) {
    const entry: KnownTool = { name: schema.name, tape, hash: digest }
    if (known === undefined) memo.byName.set(schema.name, [entry])
    else {
      if (known.length >= VARIANTS_PER_NAME) known.shift()
      known.push(entry)
    }
    memo.atPosition[position] = entry
  }
  return digest
}

/** The hash of the canonical JSON of `[{ name, hash }]`, reused while the names and hashes are the same. */
function toolListHash(tools: readonly CompiledTool[], memo: ToolMemos, hash: HashFunction): string {
  for (const list of memo.lists) {
    if (list.names.length !== tools.length) continue
    let same = true
    for (let i = 0; i < tools.length && same; i++) {
      same = list.names[i] === tools[i]!.name && list.hashes[i] === tools[i]!.hash
    }
    if (same) return list.digest
  }
  // Each part length-prefixed: no name or hash can imitate a boundary.
  let key = ''
  for (const tool of tools) key += `${String(tool.name).length}:${tool.name}${tool.hash.length}:${tool.hash}`
  let digest = memo.listsByKey.get(key)
  if (digest === undefined) {
    digest = hashText(canonicalJson(tools.map(({ name, hash }) => ({ name, hash }))), hash)
    memo.listsByKey.set(key, digest)
  }
  if (memo.lists.length >= 8) memo.lists.shift()
  memo.lists.push({ names: tools.map((t) => t.name), hashes: tools.map((t) => t.hash), digest })
  return digest
}

function hasNoEnumerableKey(object: object): boolean {
  for (const _ in object) return false
  return true
}

/**
 * The tools of an assembly with their hashes (each that of its canonical
 * JSON), in assembly order, and the hash of the list of names and hashes.
 */
export function hashTools(
  schemas: readonly ToolSchema[],
  hash: HashFunction = sha256Hex,
): { tools: CompiledTool[]; toolsHash: string } {
  const memo = memosFor(hash)
  plainPrototype = hasNoEnumerableKey(Object.prototype)
  const tools: CompiledTool[] = schemas.map((schema, i) => ({
    name: schema.name,
    hash: toolHash(schema, i, memo, hash),
    schema,
  }))
  if (memo.atPosition.length > tools.length) memo.atPosition.length = tools.length
  return { tools, toolsHash: toolListHash(tools, memo, hash) }
}
