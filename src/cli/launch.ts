#!/usr/bin/env node
/**
 * The `sysprompt` bin (bundled into `dist/bin/sysprompt.cjs`): compiles the
 * command line code (`dist/bin/cli.cjs`, one esbuild bundle of `run.ts`)
 * through V8's code cache in the user's cache directory, then runs it.
 * Compiling a megabyte of JavaScript is most of what a command spends
 * before it starts working, and a code cache holds it compiled: with one,
 * a warm `inspect` takes about 40 % less CPU. Each command keeps its own
 * cache (`v8/cli-<command>.bin`, written after its first run, so it holds
 * what that command compiled); `--no-cache` and `SYSPROMPT_CACHE=off` read
 * and write none. `src/node/code-cache.ts` validates every cache file.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compileCached, flushCodeCaches } from '../node/code-cache.js'
import { userCacheDir } from '../node/count-cache.js'
import { namedCommand } from './command-names.js'
import type { Io } from './output.js'

/** The sha256 of `cli.cjs`, put here by the build (scripts/build-cli.ts), which writes both files. */
declare const CLI_SHA256: string

// `sysprompt show | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

const argv = process.argv.slice(2)
const file = fileURLToPath(new URL('./cli.cjs', import.meta.url))
const cacheDir =
  argv.includes('--no-cache') || process.env.SYSPROMPT_CACHE === 'off' ? undefined : userCacheDir(process.env)
const script = compileCached(
  file,
  cacheDir === undefined ? undefined : join(cacheDir, 'v8', `cli-${namedCommand(argv) ?? 'root'}.bin`),
  ['exports', 'require', 'module', '__filename', '__dirname'],
  CLI_SHA256,
)
const module = { exports: {} as { run: (argv: readonly string[], io: Io) => Promise<number> } }
script.run(module.exports, createRequire(file), module, file, dirname(file))

// No top-level await: the launcher is CommonJS, which Node starts sooner than an ES module.
void module.exports
  .run(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() })
  .then(async (code) => {
    process.exitCode = code
    script.keep()
    await flushCodeCaches()
  })
