import { dirname, join } from 'node:path'
import type { AssembleContext, VariableInfo, VariableResolver } from '../../registry/types.js'
import type { GitAdapter, GitResult } from '../adapters.js'
import { isInside } from '../safe-read.js'

/** Why a git value is absent when that is worth telling (not for "not a repository"). */
export interface GitDiagnostic {
  code: 'git-missing' | 'git-timeout' | 'git-failed' | 'git-refused'
  message: string
  /** The directory git was asked about. */
  cwd: string
}

export interface GitResolverOptions {
  git: GitAdapter
  /** Per git command. */
  timeoutMs: number
  /** The directory git runs in (the assembly's working directory). */
  cwdOf: (context: AssembleContext) => string
  /** The project root: a repository whose work tree or git directory is redirected outside it is refused. */
  root?: string
  /** Real paths, to compare git's answers with the root; defaults to the identity. */
  realpath?: (path: string) => Promise<string>
  /** Told each time a key is absent because git failed, timed out, is missing or was refused. */
  onDiagnostic?: (diagnostic: GitDiagnostic) => void
}

const CATALOG: VariableInfo[] = [
  {
    key: 'git:branch',
    description: 'The current git branch, or `(detached at <short hash>)`; absent outside a repository',
    example: 'main',
    stability: 'turn',
  },
  {
    key: 'git:status',
    description:
      'Working-tree summary: `clean`, or counts such as `1 staged, 2 modified, 1 untracked`; absent outside a repository',
    example: '2 modified, 1 untracked',
    stability: 'turn',
  },
]

/**
 * The `git` namespace (SPEC §3). Each key runs only when asked for, through
 * the injected adapter with a timeout; anything that keeps git from
 * answering (not a repository, git not installed, a timeout, an error) makes
 * the key absent rather than failing the assembly, and every cause but "not
 * a repository" is told to `onDiagnostic`.
 *
 * A repository is untrusted: before anything else, git is asked where the
 * work tree and git directory are, and a repository redirected outside the
 * project root (`core.worktree`, a `.git` file whose gitdir lies elsewhere)
 * is refused. The filter and diff drivers its config names are then
 * switched off by name on every command, on top of the adapter's fixed
 * settings (`GIT_SAFE_CONFIG`), so no command the repository names runs.
 */
export function gitResolver(options: GitResolverOptions): VariableResolver {
  const realpath = options.realpath ?? (async (p: string) => p)
  return {
    namespace: 'git',
    describe: () => CATALOG.map((info) => ({ ...info })),
    async resolve(keys, context) {
      const wanted = keys.filter((k) => k === 'git:branch' || k === 'git:status')
      if (wanted.length === 0) return new Map(keys.map((key) => [key, null]))
      const cwd = options.cwdOf(context)
      const report = (code: GitDiagnostic['code'], message: string) =>
        options.onDiagnostic?.({ code, message, cwd })
      const plain = (args: string[]): Promise<GitResult> =>
        options.git.run(args, { cwd, timeoutMs: options.timeoutMs })
      const absent = () => new Map(keys.map((key) => [key, null]))
      const where = await plain([
        'rev-parse',
        '--path-format=absolute',
        '--show-toplevel',
        '--git-dir',
        '--git-common-dir',
      ])
      if (!where.ok) {
        if (!notARepository(where)) report(...failureOf(where, 'find the repository'))
        return absent()
      }
      const refused = await redirected(where.stdout, options.root, realpath)
      if (refused !== undefined) {
        report('git-refused', refused)
        return absent()
      }
      const drivers = await plain(['config', '--null', '--name-only', '--get-regexp', DRIVER_KEYS])
      if (!drivers.ok && drivers.exitCode !== 1) {
        report(...failureOf(drivers, 'read its configuration'))
        return absent()
      }
      const overrides = gitDriverOverrides(drivers.ok ? drivers.stdout : '')
      const run: Run = async (args, what) => {
        const result = await plain([...overrides, ...args])
        if (!result.ok && (what !== undefined || result.failure !== 'error'))
          report(...failureOf(result, what ?? args[0]!))
        return result
      }
      const values = await Promise.all(
        keys.map((key) =>
          key === 'git:branch' ? currentBranch(run) : key === 'git:status' ? statusSummary(run) : null,
        ),
      )
      return new Map(keys.map((key, i) => [key, values[i] ?? null]))
    },
  }
}

/** Config keys of drivers that name a command: filters (clean, smudge, process), diff drivers (textconv, command), merge drivers. */
const DRIVER_KEYS = '^(filter|diff|merge)\\..+\\.(clean|smudge|process|textconv|command|driver)$'

/**
 * `-c` settings that empty every driver command the repository's config
 * names (`git config --null --name-only` output), so none of them runs.
 */
export function gitDriverOverrides(names: string): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  for (const name of names.split('\0')) {
    const key = name.trim()
    if (key === '' || seen.has(key)) continue
    seen.add(key)
    out.push('-c', `${key}=`)
    if (key.startsWith('filter.')) out.push('-c', `${key.slice(0, key.lastIndexOf('.'))}.required=false`)
  }
  return out
}

function notARepository(result: GitResult): boolean {
  return result.failure === 'error' && /not a git repository/i.test(result.stderr ?? '')
}

/** A diagnostic for a failed git command: what was tried and why it failed. */
function failureOf(result: GitResult, what: string): [GitDiagnostic['code'], string] {
  if (result.failure === 'missing')
    return ['git-missing', 'git is not installed (or not on PATH), so git values are absent']
  if (result.failure === 'timeout')
    return ['git-timeout', `git timed out trying to ${what}, so git values are absent`]
  const line = (result.stderr ?? '')
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim()
  return [
    'git-failed',
    `git failed to ${what}${line === undefined ? '' : ` (${line})`}, so git values are absent`,
  ]
}

/**
 * Why the repository git found is refused, or `undefined`: its work tree
 * must lie inside the root, or the root inside a plain repository (work
 * tree above the root whose git directory is its own `.git`), and the git
 * directory must not be redirected outside the root.
 */
async function redirected(
  stdout: string,
  root: string | undefined,
  realpath: (p: string) => Promise<string>,
): Promise<string | undefined> {
  if (root === undefined) return undefined
  const [top, gitDir, commonDir] = stdout.split('\n').map((l) => l.trim())
  if (top === undefined || gitDir === undefined || commonDir === undefined || top === '')
    return 'git did not name the work tree (a bare repository?), so git was not asked anything else'
  const real = async (p: string) => realpath(p).catch(() => p)
  const [realRoot, realTop, realGit, realCommon] = await Promise.all([root, top, gitDir, commonDir].map(real))
  if (isInside(realRoot!, realTop!)) {
    if (isInside(realRoot!, realGit!) && isInside(realRoot!, realCommon!)) return undefined
    return `the repository's git directory ${realGit} lies outside the project root ${realRoot} (a .git file pointing elsewhere), so git was not run there`
  }
  if (isInside(realTop!, realRoot!) && realGit === join(realTop!, '.git') && realCommon === realGit) {
    return undefined
  }
  if (!isInside(realTop!, realRoot!) || dirname(realGit!) !== realTop)
    return `the repository's work tree ${realTop} is redirected outside the project root ${realRoot} (core.worktree or a .git file), so git was not run there`
  return `the repository's git directory ${realGit} lies outside the project root ${realRoot}, so git was not run there`
}

type Run = (args: string[], what?: string) => Promise<GitResult>

/**
 * The branch HEAD points at (an unborn branch included), else
 * `(detached at abc1234)`. The second command runs only when the first says
 * HEAD is not a branch, never after git went missing or timed out.
 */
async function currentBranch(run: Run): Promise<string | null> {
  // `symbolic-ref` fails (exit 1) on a detached HEAD: not worth a diagnostic.
  const ref = await run(['symbolic-ref', '--quiet', '--short', 'HEAD'])
  if (ref.ok) return ref.stdout.trim() || null
  if (ref.failure !== 'error') return null
  const head = await run(['rev-parse', '--short', 'HEAD'], 'read HEAD')
  const hash = head.ok ? head.stdout.trim() : ''
  return hash === '' ? null : `(detached at ${hash})`
}

/**
 * `clean`, or the non-zero counts among `conflicted`, `staged` (changes in
 * the index), `modified` (changes in the working tree not yet staged) and
 * `untracked`, in that order, joined by `, `. A file with staged and unstaged
 * changes counts in both; an untracked directory counts once, as git lists it.
 * Parsed from NUL-separated porcelain v2, which no path or locale can garble.
 */
async function statusSummary(run: Run): Promise<string | null> {
  const result = await run(
    ['status', '--porcelain=v2', '-z', '--untracked-files=normal', '--ignore-submodules=all'],
    'read the status',
  )
  if (!result.ok) return null
  const counts = { conflicted: 0, staged: 0, modified: 0, untracked: 0 }
  const records = result.stdout.split('\0')
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!
    const kind = record.slice(0, 2)
    if (kind === 'u ') counts.conflicted++
    else if (kind === '? ') counts.untracked++
    else if (kind === '1 ' || kind === '2 ') {
      if (record[2] !== '.') counts.staged++
      if (record[3] !== '.') counts.modified++
      // A rename or copy record is followed by its original path.
      if (kind === '2 ') i++
    }
  }
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`)
  return parts.length === 0 ? 'clean' : parts.join(', ')
}
