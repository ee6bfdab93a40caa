/**
 * Prints the hash of every golden scenario as JSON, one object: the byte
 * stability test runs this under several TZ and LANG settings and compares.
 * Run by hand: `npx tsx src/presets/print-hashes.test-helper.ts`.
 */
import { loadTokenizer } from '../compile/index.js'
import { SCENARIOS } from './scenarios.test-helper.js'

await loadTokenizer('o200k')

const hashes: Record<string, string> = {}
for (const scenario of SCENARIOS) hashes[scenario.name] = (await scenario.compile()).hash
process.stdout.write(`${JSON.stringify(hashes)}\n`)
