/**
 * The launcher's second half (`launch.ts` imports it for every command line
 * it does not answer itself): compiles the command line code
 * (`dist/bin/cli.cjs`, one esbuild bundle of `run.ts`) through V8's code
 * cache in the user's cache directory, then runs it. Compiling a megabyte of
 * JavaScript is most of what a command spends before it starts working, and
 * a code cache holds it compiled: with one, a warm `inspect` takes about
 * 40 % less CPU. Each command keeps its own cache (`v8/cli-<command>.bin`,
 * written after its first run, so it holds what that command compiled);
 * `--no-cache` and `SYSPROMPT_CACHE=off` read and write none.
 * `src/node/code-cache.ts` validates every cache file.
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

/** Runs `argv` through the command line code; resolves when the command and the cache writes are done. */
export async function launchCli(argv: readonly string[]): Promise<void> {
  const file = fileURLToPath(new URL('./cli.cjs', import.meta.url))
  const cacheDir =
    argv.includes('--no-cache') || process.env.SYSPROMPT_CACHE === 'off'
      ? undefined
      : userCacheDir(process.env)
  const script = compileCached(
    file,
    cacheDir === undefined ? undefined : join(cacheDir, 'v8', `cli-${namedCommand(argv) ?? 'root'}.bin`),
    ['exports', 'require', 'module', '__filename', '__dirname'],
    CLI_SHA256,
  )
  const module = { exports: {} as { run: (argv: readonly string[], io: Io) => Promise<number> } }
  script.run(module.exports, createRequire(file), module, file, dirname(file))
  const code = await module.exports.run(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  })
  process.exitCode = code
  script.keep()
  await flushCodeCaches()
}
