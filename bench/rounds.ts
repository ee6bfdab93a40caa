/**
 * Ratios of medians over interleaved rounds (the rule for every
 * speed figure): each round runs every case once, in turn, so a machine
 * whose speed drifts slows all cases alike; each case's figure is the
 * median over the rounds, printed with its spread (min–max of the rounds
 * relative to the median).
 */
import { clockNow as now } from './measure.js'

/** One case: `run` does the work once and returns the milliseconds it took (or undefined to time the call). */
export interface RoundCase {
  name: string
  run: () => Promise<number | undefined> | number | undefined
}

/** A case's median over the rounds, in ms, and its spread. */
export interface RoundResult {
  median: number
  min: number
  max: number
}

/** Runs `rounds` interleaved rounds of `cases` (after one untimed warm-up round). */
export async function interleave(
  cases: readonly RoundCase[],
  rounds: number,
): Promise<Map<string, RoundResult>> {
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]))
  for (let r = -1; r < rounds; r++) {
    for (const c of cases) {
      const t0 = now()
      const own = await c.run()
      const ms = own ?? now() - t0
      if (r >= 0) samples.get(c.name)!.push(ms)
    }
  }
  const out = new Map<string, RoundResult>()
  for (const [name, list] of samples) {
    list.sort((a, b) => a - b)
    const mid = list.length >> 1
    const median = list.length % 2 === 1 ? list[mid]! : (list[mid - 1]! + list[mid]!) / 2
    out.set(name, { median, min: list[0]!, max: list.at(-1)! })
  }
  return out
}

/** `a / b` of two medians, with the spread of `a`'s rounds around its median. */
export function ratioWithSpread(a: RoundResult, b: RoundResult): string {
  const r = a.median / b.median
  const lo = a.min / a.median
  const hi = a.max / a.median
  return `${r.toFixed(2)}× (rounds ${lo.toFixed(2)}–${hi.toFixed(2)} of median)`
}
