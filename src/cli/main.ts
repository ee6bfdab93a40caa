#!/usr/bin/env node
/**
 * The `sysprompt` command (SPEC §9), unbundled: tsc's `dist/cli/main.js`
 * runs the same code as the package's bin, module by module and without a
 * code cache. The bin itself is `launch.ts` (bundled into
 * `dist/bin/sysprompt.cjs`); this entry only connects the process to `run`.
 */
import { run } from './run.js'

// `sysprompt show | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
})
