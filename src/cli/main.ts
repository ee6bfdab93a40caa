#!/usr/bin/env node
/**
 * The `sysprompt` command (SPEC §9). The bin entry: it only connects the
 * process to `run`, which does the work and returns the exit code.
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
