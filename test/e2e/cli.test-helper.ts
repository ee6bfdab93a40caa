import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'

// What every end-to-end test of the BUILT command line shares (`npm test`
// builds first): the binary, a sandbox directory with an empty home, a way
// to spawn the command, and a small repository with real git.

/** The package's root directory. */
export const repoRoot = join(import.meta.dirname, '..', '..')
/** The built command. */
export const bin = join(repoRoot, 'dist', 'bin', 'sysprompt.cjs')
/** The start of an ANSI escape: its presence means colours. */
export const ESC = '\u001b['

/** How a run ended. */
export interface Result {
  code: number
  stdout: string
  stderr: string
}

/** The sandbox of the current test file: `base` holds the repositories, `home` (beside it) is an empty home directory. */
export const sandbox = { base: '', home: '' }

/** Creates the sandbox before the file's tests and removes it after; call once at the top of a test file. */
export function useSandbox(): void {
  beforeAll(async () => {
    expect(existsSync(bin), 'dist/bin/sysprompt.cjs is missing: run `npm run build` (npm test does)').toBe(
      true,
    )
    sandbox.base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-cli-')))
    // Beside the base, not in it: a run from the base (no repository) takes the base as its project,
    // and a cache directory inside the project is never used.
    sandbox.home = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-home-')))
    await mkdir(join(sandbox.home, '.config'), { recursive: true })
  })
  afterAll(async () => {
    await rm(sandbox.base, { recursive: true, force: true })
    await rm(sandbox.home, { recursive: true, force: true })
  })
}

/** A clean environment: only PATH, and the sandbox's home (so no user fragments, global files or cached counts leak in). */
export function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: sandbox.home,
    XDG_CONFIG_HOME: join(sandbox.home, '.config'),
    XDG_CACHE_HOME: join(sandbox.home, '.cache'),
    ...extra,
  }
}

/**
 * At most this many CLI processes run at once per test file: a test that
 * starts nine at once (`Promise.all`) must not starve a busy 2-core machine
 * until its timeout; the others wait their turn.
 */
export const MAX_CONCURRENT_CLIS = 2
let running = 0
const waiting: (() => void)[] = []

async function slot(): Promise<() => void> {
  if (running >= MAX_CONCURRENT_CLIS) await new Promise<void>((resolve) => waiting.push(resolve))
  running++
  return () => {
    running--
    waiting.shift()?.()
  }
}

/** Runs `sysprompt args…` in `cwd` (default: the sandbox) and resolves with its exit code and output (never rejects). */
export async function cli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; nodeArgs?: string[]; node?: string } = {},
): Promise<Result> {
  const release = await slot()
  try {
    return await spawnCli(args, options)
  } finally {
    release()
  }
}

function spawnCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; nodeArgs?: string[]; node?: string },
): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      options.node ?? process.execPath,
      [...(options.nodeArgs ?? []), bin, ...args],
      { cwd: options.cwd ?? sandbox.base, env: options.env ?? env(), encoding: 'utf8', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
        resolve({ code, stdout, stderr })
      },
    )
  })
}

/** Writes a file, creating its directories. */
export async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

/** An empty git repository `name` in the sandbox. */
export async function makeGitDir(name: string): Promise<string> {
  const dir = join(sandbox.base, name)
  await mkdir(dir, { recursive: true })
  execFileSync('git', ['init', '-q', dir])
  return dir
}

/** A git repository with nested instruction files, an import and two rules (`tests` with `paths:`, `always`). */
export async function makeRepo(name: string): Promise<string> {
  const dir = await makeGitDir(name)
  await write(join(dir, 'AGENTS.md'), '# Project\n\nRun the tests before you finish.\n\n@docs/notes.md\n')
  await write(join(dir, 'docs', 'notes.md'), 'Notes: keep functions short.\n')
  await write(join(dir, 'sub', 'AGENTS.md'), '# sub\n\nThis package parses input.\n')
  await write(join(dir, 'other', 'AGENTS.md'), '# other\n\nNot for sub.\n')
  await write(join(dir, 'sub', 'a.test.ts'), '// a test\n')
  await write(
    join(dir, '.sysprompt', 'rules', 'tests.md'),
    '---\npaths: ["**/*.test.ts"]\n---\nRun the test you touch.\n',
  )
  await write(join(dir, '.sysprompt', 'rules', 'always.md'), '---\ndescription: always\n---\nBe brief.\n')
  return dir
}

/** Counting tokens with the estimate keeps the runs fast; the counts are not what these tests check. */
export const fast = ['--tokenizer', 'estimate']

/** The run's stdout as JSON. */
export const json = (r: Result) => JSON.parse(r.stdout)

/** The section names of a compiled prompt (`show --format json`). */
export const sectionNames = (r: Result): string[] => json(r).sections.map((s: { name: string }) => s.name)

/** Asserts the run printed exactly one error line on stderr, `sysprompt: <what>; <what to do>`. */
export function oneErrorLine(r: Result): void {
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^sysprompt: .+; .+/)
}
