/**
 * Benchmark entry point: `npm run bench` (`tsx bench/run.ts`).
 *
 * Options: `--quick` for a short smoke run; `--only=template|registry|scale|tokens|startup|store|adversarial|record`
 * (startup spawns the built CLI: `npm run build` first); `--clock=wall|cpu|auto`
 * (default auto: process CPU time when the load average exceeds the
 * cores, since wall time then measures the other tenants as much as the
 * code). Heap figures need to trigger garbage collection: bench/measure.ts
 * enables `gc()` at run time, so no flag is required
 * (`NODE_OPTIONS=--expose-gc npm run bench` works as well).
 *
 * Each benchmark lives in its own module and exports one function; add new
 * ones to BENCHES.
 */
import { runAdversarialBench } from './adversarial.js'
import { type Clock, useClock } from './measure.js'
import { runRecordBench } from './record.js'
import { runRegistryBench } from './registry.js'
import { runScaleBench } from './scale.js'
import { runStartupBench } from './startup.js'
import { runStoreBench } from './store.js'
import { runTemplateBench } from './template.js'
import { runTokensBench } from './tokens.js'

const quick = process.argv.includes('--quick')
const clockArg = process.argv.find((a) => a.startsWith('--clock='))?.slice('--clock='.length) ?? 'auto'
if (clockArg !== 'auto' && clockArg !== 'wall' && clockArg !== 'cpu') {
  throw new Error(`--clock=${clockArg}: use wall, cpu or auto`)
}
const { clock, load, cores } = useClock(clockArg as Clock | 'auto')
console.log(
  `clock: ${clock}${clockArg === 'auto' ? ` (auto: load average ${load.toFixed(1)} on ${cores} cores)` : ''}`,
)

const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length)
const BENCHES: { name: string; run: (options: { quick: boolean }) => Promise<void> }[] = [
  { name: 'template', run: (options) => runTemplateBench(options) },
  { name: 'registry', run: (options) => runRegistryBench(options) },
  { name: 'scale', run: (options) => runScaleBench(options) },
  { name: 'tokens', run: (options) => runTokensBench(options) },
  { name: 'startup', run: (options) => runStartupBench(options) },
  { name: 'store', run: (options) => runStoreBench(options) },
  { name: 'adversarial', run: (options) => runAdversarialBench(options) },
  { name: 'record', run: (options) => runRecordBench(options) },
]

const started = performance.now()
for (const bench of BENCHES) if (only === undefined || only === bench.name) await bench.run({ quick })
console.log(`\nbench done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
