import { RegistryError } from './errors.js'
import type { ToolSchema } from './types.js'

/** The `toolOrder` rest entry: where tools the list does not name go, in code-unit name order. */
export const TOOL_ORDER_REST = '<unlisted-tools>'

/** Code-unit order (what `<` on strings does), independent of locale. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Checks a configured order at construction: the rest entry exactly once, no duplicates. */
export function validateToolOrder(order: readonly string[] | undefined): readonly string[] | undefined {
  if (order === undefined) return undefined
  const seen = new Set<string>()
  for (const name of order) {
    if (seen.has(name)) {
      throw new RegistryError('tool-order-invalid', `toolOrder lists "${name}" twice; list each tool once`)
    }
    seen.add(name)
  }
  if (!seen.has(TOOL_ORDER_REST)) {
    throw new RegistryError(
      'tool-order-invalid',
      `toolOrder has no "${TOOL_ORDER_REST}" entry; add it where tools the list does not name should go`,
    )
  }
  return [...order]
}

/**
 * Puts tools in their canonical order: by `order` when configured, else by
 * name. A listed name that no provider knows rejects the assembly (a typo
 * must not pass silently); a known name absent for this scope is fine.
 */
export function orderTools(
  tools: readonly ToolSchema[],
  order: readonly string[] | undefined,
  knownNames: ReadonlySet<string>,
): ToolSchema[] {
  // Providers usually list their tools in name order already: one pass finds that and skips the sort.
  let sorted = true
  for (let i = 1; i < tools.length && sorted; i++) sorted = tools[i - 1]!.name < tools[i]!.name
  const byName = sorted ? tools.slice() : [...tools].sort((a, b) => byCodeUnit(a.name, b.name))
  if (order === undefined) return byName
  const unknown = order.filter((name) => name !== TOOL_ORDER_REST && !knownNames.has(name))
  if (unknown.length > 0) {
    const known = [...knownNames].sort(byCodeUnit)
    throw new RegistryError(
      'tool-order-unknown',
      `toolOrder names ${unknown.map((n) => `"${n}"`).join(', ')}, which no tool provider knows; known tools: ${known.length > 0 ? known.join(', ') : '(none)'}`,
    )
  }
  const listed = new Set(order)
  const result: ToolSchema[] = []
  for (const name of order) {
    if (name === TOOL_ORDER_REST) result.push(...byName.filter((tool) => !listed.has(tool.name)))
    else result.push(...byName.filter((tool) => tool.name === name))
  }
  return result
}
