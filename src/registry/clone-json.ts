/**
 * A deep copy of JSON data (plain objects, arrays, primitives): what tool
 * parameters are. Several times faster than `structuredClone` on small
 * schemas, which matters because every assembly copies every tool's schema.
 * Values JSON cannot hold (functions, class instances) are kept by reference.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(cloneJson) as T
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) out[key] = cloneJson((value as Record<string, unknown>)[key])
  return out as T
}
