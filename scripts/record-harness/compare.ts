/**
 * How a harness release's recordings compare with those of the newest
 * modelled version (the release-following routine, `follow.ts`): the same,
 * or the first difference, named by tree, placement and line.
 */

/** One version's recordings: per tree, its placements in order and the text of each. */
export type Recordings = ReadonlyMap<
  string,
  { placements: readonly string[]; texts: ReadonlyMap<string, string> }
>

/** The first place where `latest` differs from `modelled`, in words; `undefined` when they are the same. */
export function firstRecordingDifference(modelled: Recordings, latest: Recordings): string | undefined {
  const trees = [...new Set([...modelled.keys(), ...latest.keys()])].sort()
  for (const tree of trees) {
    const a = modelled.get(tree)
    const b = latest.get(tree)
    if (a === undefined) return `tree ${tree}: recorded for the new release only`
    if (b === undefined) return `tree ${tree}: not recorded for the new release`
    if (a.placements.join(',') !== b.placements.join(','))
      return `tree ${tree}: placements ${a.placements.join(', ') || 'none'} became ${b.placements.join(', ') || 'none'}`
    for (const placement of a.placements) {
      const x = a.texts.get(placement) ?? ''
      const y = b.texts.get(placement) ?? ''
      if (x === y) continue
      const xs = x.split('\n')
      const ys = y.split('\n')
      let line = 0
      while (line < xs.length && line < ys.length && xs[line] === ys[line]) line++
      const show = (s: string | undefined) => (s === undefined ? '(end of text)' : JSON.stringify(s))
      return `tree ${tree}, ${placement}, line ${line + 1}: modelled ${show(xs[line])}, new ${show(ys[line])}`
    }
  }
  return undefined
}
