import { cloneJson } from './clone-json.js'
/**
 * Restores protected entries after the waterfall (SPEC §4): each protected
 * name gets back its canonical presence and definition. Restored entries
 * keep canonical order among themselves and are placed before the first
 * later unprotected canonical neighbour that survived; with none, at the
 * end. Looking only at unprotected neighbours keeps adjacent protected
 * entries in order. A protected name canonically absent is removed.
 */
export function restoreProtected<T extends { name: string }>(
  canonical: readonly T[],
  result: readonly T[],
  protectedNames: ReadonlySet<string>,
): T[] {
  const restored = result.filter((entry) => !protectedNames.has(entry.name))
  canonical.forEach((entry, index) => {
    if (!protectedNames.has(entry.name)) return
    const following = new Set<string>()
    for (let j = index + 1; j < canonical.length; j++) {
      const name = canonical[j]!.name
      if (!protectedNames.has(name)) following.add(name)
    }
    const next = restored.findIndex((candidate) => following.has(candidate.name))
    restored.splice(next < 0 ? restored.length : next, 0, cloneJson(entry))
  })
  return restored
}
