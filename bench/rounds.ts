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

/** The spread of a case's rounds: min and max relative to its median. */
export function spreadOf(r: RoundResult): string {
  return `${(r.min / r.median).toFixed(2)}–${(r.max / r.median).toFixed(2)}`
}

/** An operation timed in calibrated batches: `op` does the work once and returns a number to keep. */
export interface BatchCase {
  name: string
  op: () => Promise<number> | number
}

export interface BatchOptions {
  /** Interleaved rounds after calibration; each case's figure is the median over them. */
  rounds: number
  /** Target duration of one case's batch in a round: long enough that one collection or one tick of the clock is a small part of it. */
  sampleMs: number
  /** Warm-up per case before calibrating (the optimiser settles, memos fill). */
  warmupMs?: number
  /** A full garbage collection, untimed, before every batch, so one case's garbage is not collected on another's time. */
  settle?: () => void
}

/** A case after calibration. */
export interface Calibrated {
  name: string
  /** Calls in the last batch. */
  readonly batch: number
  /** One batch; the milliseconds per call. */
  run: () => Promise<number>
}

let kept = 0

async function runOps(op: BatchCase['op'], count: number): Promise<number> {
  const t0 = now()
  let acc = 0
  for (let i = 0; i < count; i++) {
    const v = op()
    acc += typeof v === 'number' ? v : await v
  }
  const ms = now() - t0
  kept = (kept + acc) | 0
  return ms
}

/** Warms `c` up and sizes the chunks its batches run in, so that one batch takes about `sampleMs`. */
export async function calibrate(c: BatchCase, sampleMs: number, warmupMs = 300): Promise<Calibrated> {
  let n = 1
  const end = now() + warmupMs
  let calls = 0
  do {
    const perCall = (await runOps(c.op, n)) / n
    calls += n
    if (perCall * n < sampleMs / 4) n *= 2
  } while (now() < end || calls < 3)
  // The fastest of three short batches: a collection or a busy neighbour inflates one, rarely all three.
  let perCall = Number.POSITIVE_INFINITY
  for (let k = 0; k < 3; k++) perCall = Math.min(perCall, (await runOps(c.op, n)) / n)
  // A batch runs chunks of calls until it has lasted `sampleMs` (the clock read once per chunk, a
  // chunk about an eighth of the batch), so a calibration that a busy moment skewed cannot make the
  // samples short.
  const chunk = Math.max(1, Math.round(sampleMs / 8 / Math.max(perCall, 1e-6)))
  let batch = 0
  const run = async (): Promise<number> => {
    let calls = 0
    let ms = 0
    do {
      ms += await runOps(c.op, chunk)
      calls += chunk
    } while (ms < sampleMs)
    batch = calls
    return ms / calls
  }
  return {
    name: c.name,
    get batch() {
      return batch
    },
    run,
  }
}

/**
 * Times `cases` side by side: each is warmed up and calibrated, then one
 * batch of each case runs per round, in turn, for `rounds` rounds. Returns
 * each case's median ms per call with its spread, and the batch sizes.
 */
export async function interleaveBatches(
  cases: readonly BatchCase[],
  options: BatchOptions,
): Promise<{ results: Map<string, RoundResult>; batches: Map<string, number> }> {
  const calibrated: Calibrated[] = []
  for (const c of cases) calibrated.push(await calibrate(c, options.sampleMs, options.warmupMs))
  const settle = options.settle
  const results = await interleave(
    calibrated.map((c) => ({
      name: c.name,
      run: async () => {
        settle?.()
        return c.run()
      },
    })),
    options.rounds,
  )
  if (kept === 0.5) console.log(kept)
  return { results, batches: new Map(calibrated.map((c) => [c.name, c.batch])) }
}
