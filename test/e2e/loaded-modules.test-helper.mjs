// Preloaded with `node --import` by the start-up tests: records every module
// the process loads, ES modules through a resolve hook (in the thread, appending to the log file), CommonJS ones (what
// `createRequire` loads) from the require cache at exit, Node's built-in
// modules from `process.moduleLoadList`, and every file read
// with `readFileSync` or opened with `openSync` (the CLI compiles
// gpt-tokenizer's rank tables through V8's code cache from the file's text,
// not through `require`, and reads the package's compact rank tables
// through a descriptor).
import { appendFileSync } from 'node:fs'
import { createRequire, registerHooks, syncBuiltinESMExports } from 'node:module'
import { fileURLToPath } from 'node:url'

const log = process.env.SYSPROMPT_MODULE_LOG
if (log !== undefined && log !== '') {
  // In-thread resolve hooks (`module.register`, which runs them on a loader thread, is deprecated from Node 26).
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context)
      // A file as a path, as the require cache names it (sync hooks see `require` too: one line for both).
      const url = resolved.url
      appendFileSync(log, `${url.startsWith('file:') ? fileURLToPath(url) : url}\n`)
      return resolved
    },
  })
  const require = createRequire(import.meta.url)
  const fs = require('node:fs')
  const readFileSync = fs.readFileSync
  fs.readFileSync = function loggedReadFileSync(path, ...rest) {
    if (typeof path === 'string') appendFileSync(log, `${path}\n`)
    return readFileSync.call(this, path, ...rest)
  }
  const openSync = fs.openSync
  fs.openSync = function loggedOpenSync(path, ...rest) {
    if (typeof path === 'string') appendFileSync(log, `${path}\n`)
    return openSync.call(this, path, ...rest)
  }
  syncBuiltinESMExports()
  process.on('exit', () => {
    const loaded = Object.keys(require.cache)
    // Node's own modules as `builtin:<name>` (the bundled command requires them from one file).
    for (const entry of process.moduleLoadList)
      if (entry.startsWith('NativeModule ')) loaded.push(`builtin:${entry.slice('NativeModule '.length)}`)
    if (loaded.length > 0) appendFileSync(log, `${loaded.join('\n')}\n`)
  })
}
