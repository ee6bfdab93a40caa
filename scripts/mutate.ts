// `npm run mutate [-- folder…] [-- stryker flags]`: Stryker over each folder
// of `mutation/folders.json` in turn (all of them, smallest first, when none is
// named), each with its own report and incremental state under
// `reports/mutation/<folder>/`. Other arguments go to `stryker run`
// (`--concurrency 2`; `--force` to ignore the incremental state; `--checkers ""`
// to skip type-checking each mutant, which on a busy machine costs more than
// running its tests). Name folders before flags.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const FOLDERS: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('../mutation/folders.json', import.meta.url), 'utf8'),
)

// A bare `--` (as in the usage line above) only separates folders from flags.
const args = process.argv.slice(2).filter((arg) => arg !== '--')
// A word right after a flag is its value (`--concurrency 2`, `--checkers ""`);
// other words name folders.
const named: string[] = []
const passed: string[] = []
const unknown: string[] = []
for (const [i, arg] of args.entries()) {
  const value = i > 0 && args[i - 1]!.startsWith('-') && !arg.startsWith('-')
  if (arg.startsWith('-') || value) passed.push(arg)
  else if (Object.hasOwn(FOLDERS, arg)) named.push(arg)
  else unknown.push(arg)
}
if (unknown.length > 0) {
  console.error(`mutate: unknown folder ${unknown.join(', ')}; folders: ${Object.keys(FOLDERS).join(', ')}`)
  process.exit(2)
}
let failed = false
for (const folder of named.length > 0 ? named : Object.keys(FOLDERS)) {
  console.log(`\nmutate: ${folder}`)
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...passed], {
    stdio: 'inherit',
    env: { ...process.env, MUTATE_FOLDER: folder },
  })
  if (run.status !== 0) failed = true
}
process.exit(failed ? 1 : 0)
