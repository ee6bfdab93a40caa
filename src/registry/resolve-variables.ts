import { keyNamespace } from '../template/index.js'
import type { AssembleContext, Stability, VariableInfo, VariableResolver } from './types.js'

/**
 * Resolves namespaced keys with the resolver of each key's namespace (SPEC
 * §3). Only the keys asked for reach a resolver, each resolver is called once
 * with all of its keys, and the calls run concurrently. A key whose namespace
 * has no resolver, that is not namespaced, or that its resolver leaves out
 * resolves to `null`. With several resolvers for one namespace, the last wins.
 */
export async function resolveVariables(
  resolvers: readonly VariableResolver[],
  keys: readonly string[],
  context: AssembleContext = {},
): Promise<Map<string, string | null>> {
  const byNamespace = new Map<string, VariableResolver>()
  for (const resolver of resolvers) byNamespace.set(resolver.namespace, resolver)
  const wanted = new Map<VariableResolver, string[]>()
  const result = new Map<string, string | null>()
  for (const key of new Set(keys)) {
    result.set(key, null)
    const ns = keyNamespace(key)
    const resolver = ns === undefined ? undefined : byNamespace.get(ns)
    if (resolver === undefined) continue
    const list = wanted.get(resolver)
    if (list === undefined) wanted.set(resolver, [key])
    else list.push(key)
  }
  const answers = await Promise.all(
    [...wanted].map(async ([resolver, asked]) => [asked, await resolver.resolve(asked, context)] as const),
  )
  for (const [asked, values] of answers) {
    for (const key of asked) {
      const value = values.get(key)
      result.set(key, typeof value === 'string' ? value : null)
    }
  }
  return result
}

/**
 * The stability of `key` according to its resolver's catalog: the entry
 * naming it, else its namespace's pattern entry, else `session`.
 */
export function keyStability(resolver: VariableResolver | undefined, key: string): Stability {
  if (resolver === undefined) return 'session'
  const catalog: VariableInfo[] = resolver.describe()
  const exact = catalog.find((info) => info.key === key && info.pattern !== true)
  if (exact !== undefined) return exact.stability
  return catalog.find((info) => info.pattern === true)?.stability ?? 'session'
}
