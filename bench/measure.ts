/**
 * Small timing and heap helpers for the benchmarks.
 *
 * Timing: warm up (which also calibrates), then run a fixed time budget
 * split into batches of equal iteration counts, and report the median
 * µs/op of the batches. The clock is wall time, or the process's CPU time
 * (user + system, all threads) which stays meaningful on a machine shared
 * with other work; `auto` picks CPU time when the load average exceeds
 * the cores. Heap: `gc()` is taken from `--expose-gc` when the
 * process has it, else enabled at run time through `v8.setFlagsFromString`
 * (so `npm run bench` needs no flags); when neither works, heap figures
 * are reported as unavailable.
 */
import { availableParallelism, loadavg } from 'node:os'
import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

export type Clock = 'wall' | 'cpu'

const cpuNow = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
const wallNow = (): number => performance.now()

let clock: Clock = 'wall'
/** The current reading of the selected clock, in ms. */
let now: () => number = wallNow

/** Selects the clock; `auto` is CPU time when the 1-minute load average exceeds the available cores. */
export function useClock(choice: Clock | 'auto'): { clock: Clock; load: number; cores: number } {
  const load = loadavg()[0] ?? 0
  const cores = availableParallelism()
  clock = choice === 'auto' ? (load > cores ? 'cpu' : 'wall') : choice
  now = clock === 'cpu' ? cpuNow : wallNow
  return { clock, load, cores }
}

/** The selected clock's current reading, in ms. */
export function clockNow(): number {
  return now()
}

export function currentClock(): Clock {
  return clock
}

/** Reads one character from the middle: forces V8 to flatten a rope (`+=`-built string) and gives the loop a result to keep. */
export function flat(s: string): number {
  return s.charCodeAt(s.length >> 1)
}

/** Results of timed operations are folded in here, so the optimiser cannot drop the work. */
let sink = 0

export interface TimeOptions {
  /** Warm-up (and calibration) time per case before measuring. */
  warmupMs?: number
  /** Measured time per case, split over its batches. */
  budgetMs?: number
  /** Batches per case; the median of their µs/op is reported. */
  batches?: number
}

export interface Case {
  name: string
  /** One operation; `i` counts 0…n−1 within a batch. Returns a number, accumulated so the work is not elided. */
  op: (i: number) => number
  /** Cap on iterations per batch (e.g. to bound what `prepare` allocates); capped cases run more batches. */
  maxBatchIterations?: number
  /** Untimed: called before each batch with its iteration count (e.g. to build unique inputs `op(i)` reads), then a full GC. */
  prepare?: (iterations: number) => void
}

export interface Timing {
  /** Median µs per operation over the batches. */
  us: number
  minUs: number
  maxUs: number
  iterationsPerBatch: number
  batches: number
}

interface Plan {
  iterations: number
  batches: number
  samples: number[]
}

function runBatch(c: Case, iterations: number): number {
  if (c.prepare !== undefined) {
    c.prepare(iterations)
    // Collect the previous batch's inputs now rather than inside the timed loop. (Cases without
    // inputs skip this: their own garbage is part of their cost, and a forced full GC leaves
    // sweeper threads running into the next timed batch.)
    gc?.()
  }
  const t0 = now()
  let acc = 0
  for (let i = 0; i < iterations; i++) acc += c.op(i)
  const dt = now() - t0
  sink = (sink + acc) | 0
  return dt
}

/**
 * Times several cases side by side: each is warmed up and calibrated, then
 * their batches are interleaved (one batch of each case per round), so a
 * change in machine load during the run affects every case alike.
 */
export function timeCases(cases: readonly Case[], options: TimeOptions = {}): Map<string, Timing> {
  const warmupMs = options.warmupMs ?? 200
  const budgetMs = options.budgetMs ?? 1000
  const batches = Math.max(1, options.batches ?? 9)
  const plans: Plan[] = []
  for (const c of cases) {
    const maxIterations = c.maxBatchIterations ?? Number.POSITIVE_INFINITY
    // Warm-up, doubling the round size while rounds are short; the last round calibrates.
    let n = 1
    let msPerOp = 0
    const warmEnd = now() + warmupMs
    do {
      const size = Math.min(n, maxIterations)
      msPerOp = runBatch(c, size) / size
      if (msPerOp * size < 50) n *= 2
    } while (now() < warmEnd)
    let iterations = Math.max(1, Math.round(budgetMs / batches / Math.max(msPerOp, 1e-6)))
    let count = batches
    if (iterations > maxIterations) {
      iterations = maxIterations
      count = Math.min(Math.max(batches, Math.round(budgetMs / (iterations * msPerOp))) | 1, 4 * batches + 1)
    }
    plans.push({ iterations, batches: count, samples: [] })
  }
  const rounds = Math.max(...plans.map((p) => p.batches))
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const plan = plans[k]!
      if (round >= plan.batches) continue
      plan.samples.push((runBatch(cases[k]!, plan.iterations) * 1000) / plan.iterations)
    }
  }
  const out = new Map<string, Timing>()
  cases.forEach((c, k) => {
    const { samples, iterations } = plans[k]!
    samples.sort((a, b) => a - b)
    out.set(c.name, {
      us: median(samples),
      minUs: samples[0]!,
      maxUs: samples[samples.length - 1]!,
      iterationsPerBatch: iterations,
      batches: samples.length,
    })
  })
  return out
}

/** Times one case (see {@link timeCases}). */
export function timeOp(
  op: (i: number) => number,
  options: TimeOptions & Omit<Case, 'name' | 'op'> = {},
): Timing {
  return timeCases([{ name: 'op', op, ...options }], options).get('op')!
}

/**
 * Time of single calls of `op` (on the selected clock), each after a full GC, repeated up to `reps`
 * times or until `maxMs` has passed (at least once); the median in ms. For slow operations (ms and up).
 */
export function timeCalls(op: () => number, reps = 5, maxMs = 1500): { ms: number; runs: number } {
  const samples: number[] = []
  const end = now() + maxMs
  do {
    gc?.()
    const t0 = now()
    sink = (sink + op()) | 0
    samples.push(now() - t0)
  } while (samples.length < reps && now() < end)
  samples.sort((a, b) => a - b)
  return { ms: median(samples), runs: samples.length }
}

export function median(sorted: readonly number[]): number {
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function resolveGc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (typeof exposed === 'function') return exposed
  try {
    // Flags set after start-up apply to contexts created afterwards.
    setFlagsFromString('--expose-gc')
    const fn = runInNewContext('gc') as unknown
    return typeof fn === 'function' ? (fn as () => void) : undefined
  } catch {
    return undefined
  }
}

/** A full garbage collection, when the runtime lets us trigger one. */
export const gc: (() => void) | undefined = resolveGc()

/** Used V8 heap after full collections, in bytes; `undefined` without `gc`. */
export function settledHeap(): number | undefined {
  if (gc === undefined) return undefined
  gc()
  gc()
  return getHeapStatistics().used_heap_size
}

/**
 * The heap retained by what `build` returns: used heap after `build`
 * minus before, both after full collections. Whatever exists before the
 * call (inputs such as source strings) is not counted.
 */
export function retainedHeap<T>(build: () => T): { bytes: number | undefined; kept: T } {
  const before = settledHeap()
  const kept = build()
  const after = settledHeap()
  return { bytes: before === undefined || after === undefined ? undefined : after - before, kept }
}
