import { existsSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cli, env, makeRepo, repoRoot, sandbox, useSandbox } from './cli.test-helper.js'

// What a command loads, not how fast: `--help`, `--version`, `explain` and
// `--tokenizer estimate` load no encoding; a cold `inspect` reads the
// encoding's compact rank table from the package (`dist/tokenizer/`) and
// none of gpt-tokenizer's own tables; a warm `inspect` (its counts in the
// count cache) loads none either; importing `sysprompt` loads nothing of the
// tokenizer package.

useSandbox()

const preload = join(repoRoot, 'test', 'e2e', 'loaded-modules.test-helper.mjs')
/** What only the prompt pipeline loads (its OS adapter): the sign that a command built a prompt. */
const PIPELINE_MARK = 'builtin:os'
/** The command line code's bundle, which the launcher reads only when it does not answer by itself. */
const CLI_BUNDLE = /\/dist\/bin\/cli\.cjs$/
let runs = 0
/** A compact rank table of the package (src/node/rank-table.ts), as its path ends. */
const COMPACT_TABLE = /.*\/dist\/tokenizer\/(\w+)\.bin$/

/** Runs the CLI with the module log preloaded; resolves with its result and the tokenizer modules it loaded. */
async function traced(args: string[], extra: Record<string, string> = {}, cwd?: string) {
  const log = join(sandbox.base, `modules-${runs++}.log`)
  const result = await cli(args, {
    ...(cwd === undefined ? {} : { cwd }),
    env: env({ SYSPROMPT_MODULE_LOG: log, ...extra }),
    nodeArgs: ['--import', pathToFileURL(preload).href],
  })
  const lines = existsSync(log) ? (await readFile(log, 'utf8')).split('\n') : []
  const tokenizer = [...new Set(lines.filter((l) => l.includes('/gpt-tokenizer/')))]
  const compact = [...new Set(lines.filter((l) => COMPACT_TABLE.test(l)))]
  return {
    result,
    all: lines,
    tokenizer,
    /** The encodings whose gpt-tokenizer rank tables were loaded (the slow way, which builds its map). */
    gptTables: tokenizer
      .filter((l) => l.includes('/bpeRanks/'))
      .map((l) => l.replace(/.*\/bpeRanks\/|\.js$/g, '')),
    /** The encodings whose rank tables were loaded, either way. */
    tables: [
      ...compact.map((l) => l.replace(COMPACT_TABLE, '$1')),
      ...tokenizer.filter((l) => l.includes('/bpeRanks/')).map((l) => l.replace(/.*\/bpeRanks\/|\.js$/g, '')),
    ],
  }
}

describe('start-up loads only what a command needs', () => {
  it('the module log itself works: a cold inspect reads the compact o200k table, and only that', async () => {
    const repo = await makeRepo('cold')
    const cache = join(sandbox.base, 'cold-cache')
    const run = await traced(['inspect', '--json'], { XDG_CACHE_HOME: cache }, repo)
    expect(run.result.code).toBe(0)
    expect(run.tables).toEqual(['o200k_base'])
    // Nothing of gpt-tokenizer's but its version (the table's header must name it): nothing builds its
    // 200 000-entry map, so nothing compiles its rank module either.
    expect(run.gptTables).toEqual([])
    expect(run.tokenizer.map((l) => l.replace(/.*\/gpt-tokenizer\//, ''))).toEqual(['package.json'])
    expect(existsSync(join(cache, 'sysprompt', 'v8', 'o200k_base.bin'))).toBe(false)
    await rm(join(cache, 'sysprompt', 'counts'), { recursive: true })
    const again = await traced(['inspect', '--json'], { XDG_CACHE_HOME: cache }, repo)
    expect(again.tables).toEqual(['o200k_base'])
    expect(JSON.parse(again.result.stdout)).toEqual(JSON.parse(run.result.stdout))
    // The prompt pipeline ran: the command line bundle was read, and its OS adapter loaded `node:os`.
    expect(run.all.filter((l) => CLI_BUNDLE.test(l))).toHaveLength(1)
    expect(run.all).toContain(PIPELINE_MARK)
  })

  it('the command line code compiles through a code cache per command; a damaged one is rebuilt, never run', async () => {
    const repo = await makeRepo('code-cache')
    const cache = join(sandbox.base, 'code-cache-home')
    const first = await cli(['inspect', '--json'], { cwd: repo, env: env({ XDG_CACHE_HOME: cache }) })
    expect(first.code).toBe(0)
    const file = join(cache, 'sysprompt', 'v8', 'cli-inspect.bin')
    expect(existsSync(file)).toBe(true)
    expect(existsSync(join(cache, 'sysprompt', 'v8', 'cli-root.bin'))).toBe(false)
    const good = await readFile(file)
    const damaged = Buffer.from(good)
    damaged[damaged.length - 16]! ^= 0xff
    await writeFile(file, damaged)
    const again = await cli(['inspect', '--json'], { cwd: repo, env: env({ XDG_CACHE_HOME: cache }) })
    expect(again.stderr).toBe(
      `sysprompt: warning: the code cache ${file} failed its checks; it was not run and will be rebuilt; pass --no-cache to use none\n`,
    )
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout))
    expect((await readFile(file)).equals(damaged)).toBe(false)
  })

  it('--help and --version load nothing of the tokenizer package, nor the prompt pipeline', async () => {
    for (const args of [['--help'], ['--version'], ['help']]) {
      const run = await traced(args)
      expect(run.result.code, args.join(' ')).toBe(0)
      expect(run.tokenizer, args.join(' ')).toEqual([])
      // The launcher answered alone: the command line bundle was never read, so no prompt pipeline ran.
      expect(
        run.all.filter((l) => CLI_BUNDLE.test(l)),
        args.join(' '),
      ).toEqual([])
    }
  })

  it('the root texts come from the launcher alone, byte for byte what commander prints', async () => {
    // Commander's answer, in this process, from the library build of the same code.
    const { run } = (await import(pathToFileURL(join(repoRoot, 'dist', 'cli', 'run.js')).href)) as {
      run: (argv: string[], io: unknown) => Promise<number>
    }
    for (const args of [['--help'], ['-h'], ['help'], ['--version'], ['-V'], []]) {
      const launched = await traced(args)
      let stdout = ''
      let stderr = ''
      const code = await run(args, {
        stdout: { write: (t: string) => (stdout += t) },
        stderr: { write: (t: string) => (stderr += t) },
        env: {},
        cwd: repoRoot,
      })
      const what = `sysprompt ${args.join(' ')}`
      expect(launched.result, what).toEqual({ ...launched.result, code, stdout, stderr })
      // Neither the command line code nor what only it needs: no bundle read, no hashing, no child processes.
      expect(
        launched.all.some((l) => l.endsWith('/dist/bin/cli.cjs')),
        what,
      ).toBe(false)
      for (const builtin of ['builtin:crypto', 'builtin:child_process', 'builtin:vm', 'builtin:fs/promises'])
        expect(launched.all, what).not.toContain(builtin)
    }
    // Anything else still goes through commander: the bundle is read and its usage errors stay.
    const other = await traced(['--bogus'])
    expect(other.result.code).toBe(2)
    expect(other.result.stderr).toContain("sysprompt: unknown option '--bogus'")
    expect(other.all.some((l) => l.endsWith('/dist/bin/cli.cjs'))).toBe(true)
  })

  it('a warm inspect loads no child process machinery (git did not have to run)', async () => {
    const repo = await makeRepo('warm-modules')
    const cache = join(sandbox.base, 'warm-modules-cache')
    await cli(['inspect', '--json'], { cwd: repo, env: env({ XDG_CACHE_HOME: cache }) })
    const warm = await traced(['inspect', '--json'], { XDG_CACHE_HOME: cache }, repo)
    expect(warm.result.code).toBe(0)
    expect(warm.all).toContain(PIPELINE_MARK)
    expect(warm.tables).toEqual([])
    for (const builtin of ['builtin:child_process', 'builtin:dgram']) expect(warm.all).not.toContain(builtin)
  })

  it('explain and --tokenizer estimate load no encoding', async () => {
    const repo = await makeRepo('estimate')
    const explain = await traced(['explain', 'AGENTS.md'], {}, repo)
    expect(explain.result.code).toBe(0)
    expect(explain.tables).toEqual([])
    for (const command of ['inspect', 'show', 'lint']) {
      const run = await traced([command, '--tokenizer', 'estimate', '--no-cache'], {}, repo)
      expect(run.result.stderr, command).not.toContain('unexpected')
      expect(run.tables, command).toEqual([])
    }
  })

  it('a warm inspect takes every count from the cache and loads no encoding', async () => {
    const repo = await makeRepo('warm')
    const cache = join(sandbox.base, 'warm-cache')
    const cold = await traced(['inspect', '--json', '--tokenizer', 'cl100k'], { XDG_CACHE_HOME: cache }, repo)
    expect(cold.tables).toEqual(['cl100k_base'])
    expect(cold.gptTables).toEqual([])
    expect(cold.tokenizer.map((l) => l.replace(/.*\/gpt-tokenizer\//, ''))).toEqual(['package.json'])
    expect(existsSync(join(cache, 'sysprompt', 'counts'))).toBe(true)
    const warm = await traced(['inspect', '--json', '--tokenizer', 'cl100k'], { XDG_CACHE_HOME: cache }, repo)
    expect(warm.tables).toEqual([])
    expect(JSON.parse(warm.result.stdout)).toEqual(JSON.parse(cold.result.stdout))
  })

  it('--no-cache and SYSPROMPT_CACHE=off neither read nor write the cache', async () => {
    const repo = await makeRepo('nocache')
    const cache = join(sandbox.base, 'no-cache')
    for (const [args, extra] of [
      [['inspect', '--no-cache'], {}],
      [['inspect'], { SYSPROMPT_CACHE: 'off' }],
    ] as const) {
      await rm(cache, { recursive: true, force: true })
      const run = await traced([...args], { XDG_CACHE_HOME: cache, ...extra }, repo)
      expect(run.result.code).toBe(0)
      expect(existsSync(cache)).toBe(false)
      expect(run.tables).toEqual(['o200k_base'])
    }
  })

  it('importing sysprompt loads no tokenizer module', async () => {
    const log = join(sandbox.base, 'import.log')
    const { execFile } = await import('node:child_process')
    const entry = pathToFileURL(join(repoRoot, 'dist', 'index.js')).href
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          '--import',
          pathToFileURL(preload).href,
          '--input-type=module',
          '-e',
          `await import(${JSON.stringify(entry)})`,
        ],
        { env: env({ SYSPROMPT_MODULE_LOG: log }) },
        (error) => (error === null ? resolve() : reject(error)),
      ),
    )
    const lines = (await readFile(log, 'utf8')).split('\n')
    expect(lines.some((l) => l.endsWith('/dist/index.js'))).toBe(true)
    expect(lines.filter((l) => l.includes('/gpt-tokenizer/'))).toEqual([])
  })
})
