// `npm run mutate [-- folder…] [--files a.ts,dir [--part name] | --part name] [stryker flags]`:
// Stryker over each folder of `mutation/folders.json` in turn (all of them,
// smallest first, when none is named), each with its own report and
// incremental state under `reports/mutation/<folder>/`. Other arguments go to
// `stryker run` (`--concurrency 2`; `--force` to ignore the incremental state;
// `--checkers ""` to skip type-checking each mutant, which on a busy machine
// costs more than running its tests). Name folders before flags.
//
// A part of one folder: `--files` (comma-separated files or directories of
// that folder) mutates only those files, still running the whole folder's
// tests, with its own report and incremental state under
// `reports/mutation/<folder>-<part>/`; `--part name` names it (default: the
// files' names joined by `+`). `--part name` alone runs a part listed under
// the folder's `parts` in `mutation/folders.json`. A path that does not exist,
// is a test, or lies outside the folder is an error (exit 2).
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { posix, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import picomatch from 'picomatch'

interface Folder {
  mutate: string[]
  exclude?: string[]
  /** Test directories and files (a test outside the folder that tests it). */
  tests: string | string[]
  parts?: Record<string, string[]>
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const FOLDERS: Record<string, Folder> = JSON.parse(
  readFileSync(new URL('../mutation/folders.json', import.meta.url), 'utf8'),
)

function fail(message: string): never {
  console.error(`mutate: ${message}`)
  process.exit(2)
}

// A bare `--` (as in the usage line above) only separates folders from flags.
const args = process.argv.slice(2).filter((arg) => arg !== '--')
// A word right after a flag is its value (`--concurrency 2`, `--checkers ""`);
// other words name folders. `--files` and `--part` are this script's own.
const named: string[] = []
const passed: string[] = []
const unknown: string[] = []
let files: string | undefined
let part: string | undefined
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!
  if (arg === '--files' || arg === '--part') {
    const value = args[++i]
    if (value === undefined || value.startsWith('-')) fail(`${arg} needs a value`)
    if (arg === '--files') files = value
    else part = value
    continue
  }
  const value = i > 0 && args[i - 1]!.startsWith('-') && !arg.startsWith('-')
  if (arg.startsWith('-') || value) passed.push(arg)
  else if (Object.hasOwn(FOLDERS, arg)) named.push(arg)
  else unknown.push(arg)
}
if (unknown.length > 0)
  fail(`unknown folder ${unknown.join(', ')}; folders: ${Object.keys(FOLDERS).join(', ')}`)

/** The files of `folder` a part names: each path a file or a directory (all its mutable files) of the folder. */
function partFiles(name: string, folder: Folder, paths: string[]): string[] {
  const inFolder = picomatch(folder.mutate)
  const excluded = picomatch(folder.exclude ?? [])
  const mutable = (file: string): boolean =>
    file.endsWith('.ts') &&
    !/\.(test|test-helper|generated)\.ts$/.test(file) &&
    inFolder(file) &&
    !excluded(file)
  const out = new Set<string>()
  for (const given of paths) {
    const abs = resolve(ROOT, given)
    const rel = relative(ROOT, abs).split(sep).join(posix.sep)
    if (!existsSync(abs)) fail(`--files: ${given} does not exist`)
    if (statSync(abs).isDirectory()) {
      const found = (readdirSync(abs, { recursive: true }) as string[])
        .map((entry) => posix.join(rel, entry.split(sep).join(posix.sep)))
        .filter(mutable)
      if (found.length === 0)
        fail(`--files: ${given} holds no mutable file of folder ${name} (${folder.mutate.join(', ')})`)
      for (const file of found) out.add(file)
    } else if (mutable(rel)) out.add(rel)
    else
      fail(
        `--files: ${given} is not a mutable file of folder ${name} (${folder.mutate.join(', ')}; tests excluded)`,
      )
  }
  return [...out].sort()
}

const runs: { folder: string; env: Record<string, string> }[] = []
if (files !== undefined || part !== undefined) {
  if (named.length !== 1) fail('--files and --part take exactly one folder')
  const name = named[0]!
  const folder = FOLDERS[name]!
  let paths: string[]
  if (files !== undefined)
    paths = files
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')
  else {
    const listed = folder.parts?.[part!]
    if (listed === undefined) {
      const known = Object.keys(folder.parts ?? {})
      fail(
        `folder ${name} has no part ${part} (${known.length > 0 ? `parts: ${known.join(', ')}` : 'no parts listed'}); give --files`,
      )
    }
    paths = listed
  }
  if (paths.length === 0) fail('--files: no path given')
  const mutate = partFiles(name, folder, paths)
  const label = part ?? mutate.map((file) => posix.basename(file, '.ts')).join('+')
  if (!/^[\w.+-]+$/.test(label)) fail(`--part ${label}: use letters, digits, '.', '+', '-', '_'`)
  console.log(`\nmutate: ${name}, part ${label} (${mutate.length} files)`)
  runs.push({
    folder: name,
    env: { MUTATE_FOLDER: name, MUTATE_PART: label, MUTATE_FILES: mutate.join(',') },
  })
} else {
  for (const folder of named.length > 0 ? named : Object.keys(FOLDERS)) {
    console.log(`\nmutate: ${folder}`)
    runs.push({ folder, env: { MUTATE_FOLDER: folder } })
  }
}
let failed = false
for (const { env } of runs) {
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...passed], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  })
  if (run.status !== 0) failed = true
}
process.exit(failed ? 1 : 0)
