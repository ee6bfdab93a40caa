import type { ToolSchema } from '../registry/types.js'
import { canonicalJson, type HashFunction, hashText, sha256Hex } from '../shared/hash.js'
import { TextCache } from '../shared/text-cache.js'
import type { CompiledTool } from './types.js'

/** Marks a value that is not plain JSON data, so no snapshot can stand for it. */
const NOT_PLAIN: unique symbol = Symbol('not plain')

/** A plain object's own keys with a value, in enumeration order, and their values. */
class SnapshotObject {
  constructor(
    readonly keys: string[],
    readonly values: Snapshot[],
  ) {}
}

type Snapshot = string | number | boolean | null | Snapshot[] | SnapshotObject

/** No snapshot of data nested deeper: a cycle must not recurse forever (JSON then reports it). */
const MAX_DEPTH = 100

/**
 * A private deep copy of what canonical JSON reads of `value`
 * (`Array.isArray`, `Object.keys` and their values; keys holding `undefined`
 * left out, as JSON leaves them out), or NOT_PLAIN for what JSON would drop,
 * convert or refuse (functions, symbols, BigInts, `undefined` in an array, a
 * cycle).
 */
function snapshotOf(value: unknown, depth: number): Snapshot | typeof NOT_PLAIN {
  if (value === null) return null
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return value
    case 'object':
      break
    default:
      return NOT_PLAIN
  }
  if (depth >= MAX_DEPTH) return NOT_PLAIN
  if (Array.isArray(value)) {
    const items: Snapshot[] = []
    for (let i = 0; i < value.length; i++) {
      const item = snapshotOf(value[i], depth + 1)
      if (item === NOT_PLAIN) return NOT_PLAIN
      items.push(item)
    }
    return items
  }
  const keys: string[] = []
  const values: Snapshot[] = []
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key]
    if (v === undefined) continue
    const item = snapshotOf(v, depth + 1)
    if (item === NOT_PLAIN) return NOT_PLAIN
    keys.push(key)
    values.push(item)
  }
  return new SnapshotObject(keys, values)
}

/** The snapshot as plain data again, for `canonicalJson` (null prototypes: `__proto__` stays a key). */
function plainOf(snapshot: Snapshot): unknown {
  if (Array.isArray(snapshot)) return snapshot.map(plainOf)
  if (!(snapshot instanceof SnapshotObject)) return snapshot
  const out = Object.create(null) as Record<string, unknown>
  for (let i = 0; i < snapshot.keys.length; i++) out[snapshot.keys[i]!] = plainOf(snapshot.values[i]!)
  return out
}

/**
 * Whether `value` has the same canonical JSON as `snapshot`, hence the same
 * hash. Canonical JSON reads only `Array.isArray`, `Object.keys` and the
 * values of those keys, so this reads exactly those, requiring the keys in
 * the snapshot's order. Anything doubtful (keys in another order, NaN, a
 * function) answers false, which only costs the slow path.
 */
function sameAsSnapshot(value: unknown, snapshot: Snapshot): boolean {
  if (typeof snapshot !== 'object' || snapshot === null) return value === snapshot
  if (typeof value !== 'object' || value === null) return false
  if (Array.isArray(snapshot)) {
    if (!Array.isArray(value) || value.length !== snapshot.length) return false
    for (let i = 0; i < snapshot.length; i++) if (!sameAsSnapshot(value[i], snapshot[i]!)) return false
    return true
  }
  if (Array.isArray(value)) return false
  const { keys, values } = snapshot
  const own = Object.keys(value)
  let matched = 0
  for (let i = 0; i < own.length; i++) {
    const key = own[i]!
    const v = (value as Record<string, unknown>)[key]
    if (v === undefined) continue
    if (key !== keys[matched] || !sameAsSnapshot(v, values[matched]!)) return false
    matched++
  }
  return matched === keys.length
}

interface KnownTool {
  snapshot: Snapshot
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
}

const memos = new WeakMap<HashFunction, ToolMemos>()

function memosFor(hash: HashFunction): ToolMemos {
  let found = memos.get(hash)
  if (found === undefined) {
    found = {
      byName: new TextCache(1024),
      lists: [],
      listsByKey: new TextCache(256),
    }
    memos.set(hash, found)
  }
  return found
}

/**
 * The hash of a tool's canonical JSON. An assembly clones every schema, so
 * identity cannot find an unchanged one; instead the last few schemas of each
 * tool name are kept as private snapshots and a schema equal to one (a walk
 * over its data, cheaper than stringifying it) takes its hash. A schema
 * changed in place no longer equals its snapshot, so it is hashed anew.
 */
function toolHash(schema: ToolSchema, memo: ToolMemos, hash: HashFunction): string {
  const named = typeof schema.name === 'string'
  const known = named ? memo.byName.get(schema.name) : undefined
  if (known !== undefined) {
    for (let i = known.length - 1; i >= 0; i--) {
      if (sameAsSnapshot(schema, known[i]!.snapshot)) return known[i]!.hash
    }
  }
  const snapshot = snapshotOf(schema, 0)
  if (snapshot === NOT_PLAIN) {
    // What JSON cannot hold (a cycle, a BigInt) fails as JSON reports it.
    JSON.stringify(schema)
    return hashText(canonicalJson(schema), hash)
  }
  // Hashed from the snapshot, so the stored hash is the snapshot's by construction.
  const digest = hashText(canonicalJson(plainOf(snapshot)), hash)
  if (named) {
    if (known === undefined) memo.byName.set(schema.name, [{ snapshot, hash: digest }])
    else {
      if (known.length >= VARIANTS_PER_NAME) known.shift()
      known.push({ snapshot, hash: digest })
    }
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

/**
 * The tools of an assembly with their hashes (each that of its canonical
 * JSON), in assembly order, and the hash of the list of names and hashes.
 */
export function hashTools(
  schemas: readonly ToolSchema[],
  hash: HashFunction = sha256Hex,
): { tools: CompiledTool[]; toolsHash: string } {
  const memo = memosFor(hash)
  const tools: CompiledTool[] = schemas.map((schema) => ({
    name: schema.name,
    hash: toolHash(schema, memo, hash),
    schema,
  }))
  return { tools, toolsHash: toolListHash(tools, memo, hash) }
}
