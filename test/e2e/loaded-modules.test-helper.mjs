// Preloaded with `node --import` by the start-up tests: records every module
// the process loads, ES modules through a resolve hook (which runs on the
// loader thread, so it appends to the log file itself) and CommonJS ones
// (what `createRequire` loads) from the require cache at exit.
import { appendFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'

const log = process.env.SYSPROMPT_MODULE_LOG
if (log !== undefined && log !== '') {
  register(new URL('./loaded-modules-hook.test-helper.mjs', import.meta.url), { data: { log } })
  const require = createRequire(import.meta.url)
  process.on('exit', () => {
    const loaded = Object.keys(require.cache)
    if (loaded.length > 0) appendFileSync(log, `${loaded.join('\n')}\n`)
  })
}
