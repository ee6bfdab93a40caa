/**
 * Prints the hash of every golden scenario as JSON, one object: the byte
 * stability test runs this under several TZ and LANG settings and compares.
 * Run by hand: `npx tsx src/presets/print-hashes.test-helper.ts`.
 */
import { loadTokenizer } from '../compile/index.js'
import { loadFrontMatterYaml } from './index.js'

// A pure-layer user, as in a browser: the encoding and the front matter parser load by these calls.
await Promise.all([loadTokenizer('o200k'), loadFrontMatterYaml()])
// Imported after: the scenarios parse a fragment with front matter as they load.
const { SCENARIOS } = await import('./scenarios.test-helper.js')

const hashes: Record<string, string> = {}
for (const scenario of SCENARIOS) hashes[scenario.name] = (await scenario.compile()).hash
process.stdout.write(`${JSON.stringify(hashes)}\n`)
