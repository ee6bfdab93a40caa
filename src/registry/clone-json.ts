/**
 * A deep copy of JSON data (plain objects, arrays, primitives): what tool
 * parameters are. Several times faster than `structuredClone` on small
 * schemas, which matters because every assembly copies every tool's schema.
 * Values JSON cannot hold (functions, class instances) are kept by reference.
 */
export function cloneJson<T>(value: T): T {
  // Read once per copy: while Object.prototype has no enumerable key, `for…in` over a plain
  // object reads exactly its own keys (no key array, and each value by its field index).
  return copy(value, hasNoEnumerableKey(Object.prototype))
}

function hasNoEnumerableKey(object: object): boolean {
  for (const _ in object) return false
  return true
}

function copy<T>(value: T, plainPrototype: boolean): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], plainPrototype)
    return out as T
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return value
  const out: Record<string, unknown> = {}
  const from = value as Record<string, unknown>
  if (proto !== null && !plainPrototype) {
    for (const key of Object.keys(from)) out[key] = copy(from[key], plainPrototype)
  } else {
    for (const key in from) out[key] = copy(from[key], plainPrototype)
  }
  return out as T
}
