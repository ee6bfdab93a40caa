/**
 * The launcher's second half (`launch.ts` imports it for every command line
 * it does not answer itself): compiles the command line code
 * (`dist/bin/cli.cjs`, one esbuild bundle of `run.ts`) through V8's code
 * cache in the user's cache directory, then runs it. Compiling a megabyte of
 * JavaScript is most of what a command spends before it starts working, and
 * a code cache holds it compiled: with one, a warm `inspect` takes about
 * 40 % less CPU. Each command keeps its own cache (`v8/cli-<command>.bin`,
 * written after its first run, so it holds what that command compiled);
 * `--no-cache` and `SYSPROMPT_CACHE=off` read and write none. A cache
 * directory inside the project (`cacheInsideProject`: judged from this
 * run's directory and any `--cwd` and `--root`, before the arguments are
 * parsed) is never used; `src/node/code-cache.ts` and `user-cache.ts`
 * check the directory's owner and mode and every file's keyed checksum.
 */
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compileCached, flushCodeCaches } from '../node/code-cache.js'
import { userCacheDir } from '../node/count-cache.js'
import { cacheInsideProject, onCacheProblem, reportCacheProblem } from '../node/user-cache.js'
import { namedCommand } from './command-names.js'
import type { Io } from './output.js'

/** The sha256 of `cli.cjs`, put here by the build (scripts/build-cli.ts), which writes both files. */
declare const CLI_SHA256: string

/** Runs `argv` through the command line code; resolves when the command and the cache writes are done. */
export async function launchCli(argv: readonly string[]): Promise<void> {
  const file = fileURLToPath(new URL('./cli.cjs', import.meta.url))
  onCacheProblem((message) => {
    process.stderr.write(`sysprompt: warning: ${message}; pass --no-cache to use none\n`)
  })
  const cacheDir = usableCacheDir(argv, process.env, process.cwd())
  const script = compileCached(
    file,
    cacheDir === undefined ? undefined : { dir: cacheDir, name: `cli-${namedCommand(argv) ?? 'root'}` },
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

/** The user's cache directory for this command line, unless caches are off or it lies inside the project. */
function usableCacheDir(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  cwd: string,
): string | undefined {
  if (argv.includes('--no-cache') || env.SYSPROMPT_CACHE === 'off') return undefined
  const dir = userCacheDir(env)
  if (dir === undefined) return undefined
  const problem = cacheInsideProject(dir, [cwd, ...projectFlags(argv).map((given) => resolve(cwd, given))])
  if (problem === undefined) return dir
  reportCacheProblem(`${problem}, so it is not used`)
  return undefined
}

/** The values of `--cwd` and `--root` (either `--cwd X` or `--cwd=X`), read before commander parses them. */
export function projectFlags(argv: readonly string[]): string[] {
  const found: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') break
    for (const flag of ['--cwd', '--root']) {
      if (arg === flag && i + 1 < argv.length) found.push(argv[i + 1]!)
      else if (arg.startsWith(`${flag}=`)) found.push(arg.slice(flag.length + 1))
    }
  }
  return found
}
