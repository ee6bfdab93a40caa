/**
 * The fast-check run count for a property: `wanted`, or fewer when
 * `SYSPROMPT_PROPERTY_RUNS` caps it. Mutation runs (`npm run mutate`) set the
 * cap: each mutant reruns the tests that cover it, and a thousand-run
 * property per mutant would keep the machine busy for hours; the full counts
 * run in `npm test`.
 */
export function propertyRuns(wanted: number): number {
  const cap = Number(process.env.SYSPROMPT_PROPERTY_RUNS)
  return Number.isInteger(cap) && cap > 0 ? Math.min(wanted, cap) : wanted
}
