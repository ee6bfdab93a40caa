import { realpath, stat } from 'node:fs/promises'
import { homedir, hostname, userInfo } from 'node:os'
import { join } from 'node:path'
import type { CompiledPrompt, LockMachine } from '../compile/index.js'
import { shown } from '../node/project/paths.js'
import { isInside } from '../node/safe-read.js'
import { CliError } from './errors.js'
import { holdsMachineValue, type MachineWhat } from './machine-values.js'
import type { PromptOptions } from './options.js'

// A lock must hold on every checkout and every machine: it is computed with
// the values that name this machine pinned to portable ones, and records that
// it was (SPEC §5). `show` keeps the real values.

/** Placeholders the lock's prompt holds instead of this machine's values. */
export const PLACEHOLDER = { home: '<home>', user: '<user>', host: '<host>', os: '<os>' } as const

/** The working directory relative to the root, `/` separated (`.` for the root itself). */
export function relativeCwd(root: string, cwd: string): string {
  return shown(cwd, root)
}

/**
 * The pinned values a lock is computed with: `prompt:cwd` relative to the
 * root, `project:root` as `.`, the host, OS, home and user as placeholders
 * (also when read through allow-listed `env:` keys). A `--set` of the same
 * key wins.
 */
export function machinePins(root: string, cwd: string): Map<string, string> {
  const rel = relativeCwd(root, cwd)
  return new Map([
    ['prompt:cwd', rel],
    ['project:root', '.'],
    ['system:hostname', PLACEHOLDER.host],
    ['system:os', PLACEHOLDER.os],
    ['env:HOME', PLACEHOLDER.home],
    ['env:USER', PLACEHOLDER.user],
    ['env:LOGNAME', PLACEHOLDER.user],
    ['env:USERNAME', PLACEHOLDER.user],
    ['env:HOSTNAME', PLACEHOLDER.host],
    ['env:PWD', rel],
  ])
}

/**
 * Where `dir` really is: the path of its real directory (links resolved)
 * relative to the real project root, `/` separated; `outside` when that
 * lies outside the project, `missing` when it cannot be resolved.
 */
async function realCwd(root: string, dir: string): Promise<string | 'outside' | 'missing'> {
  try {
    const [realRoot, realDir] = await Promise.all([realpath(root), realpath(dir)])
    return isInside(realRoot, realDir) ? relativeCwd(realRoot, realDir) : 'outside'
  } catch {
    return 'missing'
  }
}

/**
 * The options a lock is computed with: the machine values pinned (under any
 * `--set`), and, when the lock was written for another working directory
 * than this run's, that directory (`note` says so). `lockCwd` is the lock's
 * `cwd`; `undefined` when there is no lock, or when writing it. A lock names
 * its directory by the real path (an in-project link to an outside
 * directory would otherwise make `check` read there): a directory whose real
 * path leaves the project is refused, whether this run's or the lock's.
 */
export async function lockOptions(
  options: PromptOptions,
  root: string,
  lockCwd: string | undefined,
): Promise<{ options: PromptOptions; machine: LockMachine; note?: string }> {
  const target = lockCwd === undefined ? options.cwd : join(root, ...lockCwd.split('/'))
  const isDirectory = (await stat(target).catch(() => undefined))?.isDirectory() === true
  const real = isDirectory ? await realCwd(root, target) : 'missing'
  if (real === 'missing' && lockCwd !== undefined) {
    throw new CliError(
      'lock-cwd-missing',
      `sysprompt.lock was written for the working directory ${lockCwd}, which is not a directory under ${root}`,
      'run `sysprompt check --update` from the directory the prompt is for',
    )
  }
  if (real === 'outside') {
    throw new CliError(
      'lock-cwd-outside',
      lockCwd === undefined
        ? `the working directory ${options.cwd} leads outside the project ${root} through a link, and a lock records a directory inside it`
        : `sysprompt.lock was written for the working directory ${lockCwd}, which leads outside the project ${root} through a link`,
      lockCwd === undefined
        ? 'run `sysprompt check --update` from a directory inside the project'
        : 'run `sysprompt check --update` from the directory the prompt is for, and commit the new lock',
    )
  }
  // The real directory, named under the root as given (so paths compared with the root still agree).
  const cwd = real === 'missing' ? options.cwd : real === '.' ? root : join(root, ...real.split('/'))
  let note: string | undefined
  if (lockCwd !== undefined) {
    const here = await realCwd(root, options.cwd)
    const shownHere = here === 'missing' || here === 'outside' ? options.cwd : here
    if (shownHere !== real)
      note = `checking the prompt for ${real}, the working directory sysprompt.lock was written for (this run is in ${shownHere})`
  }
  const pins = machinePins(root, cwd)
  const set = new Map([...pins, ...options.set])
  return {
    options: { ...options, cwd, root, set, paths: options.paths },
    machine: { cwd: relativeCwd(root, cwd), pinned: [...pins.keys()].filter((k) => !options.set.has(k)) },
    ...(note === undefined ? {} : { note }),
  }
}

/** A value that names this machine, found in the prompt a lock is written from. */
export interface MachineValue {
  section: string
  what: MachineWhat
  value: string
}

/** The machine's own values: the actual root, home, user, host and today's date (local and UTC). */
export function machineValues(
  root: string,
  env: Record<string, string | undefined>,
  now: Date,
): [MachineValue['what'], string][] {
  const pad = (n: number) => String(n).padStart(2, '0')
  const local = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
  const utc = now.toISOString().slice(0, 10)
  const user = env.USER ?? env.LOGNAME ?? safe(() => userInfo().username)
  const out: [MachineValue['what'], string][] = [
    ['project root', root],
    ['home directory', env.HOME ?? homedir()],
    ['host name', hostname()],
    ["today's date", local],
  ]
  if (utc !== local) out.push(["today's date", utc])
  if (user !== undefined) out.push(['user name', user])
  return out
}

function safe(read: () => string): string | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/**
 * The machine-specific values the compiled prompt still holds, per section:
 * each value found in the text where it names this machine (a path at the
 * start of a path, a user or host name in a path, login or key, or as a
 * whole word unless it is short or a common word: `holdsMachineValue`),
 * none shorter than 2 characters or a bare `/`; not anything that merely
 * looks like an absolute path.
 */
export function findMachineValues(
  compiled: CompiledPrompt,
  values: [MachineValue['what'], string][],
): MachineValue[] {
  const found: MachineValue[] = []
  for (const section of compiled.sections) {
    const text = compiled.text.slice(section.start, section.end)
    for (const [what, value] of values) {
      if (value.length < 2 || value === '/') continue
      if (
        holdsMachineValue(text, what, value) &&
        !found.some((f) => f.section === section.name && f.value === value)
      )
        found.push({ section: section.name, what, value })
    }
  }
  return found
}
