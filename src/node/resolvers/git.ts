import type { AssembleContext, VariableInfo, VariableResolver } from '../../registry/types.js'
import type { GitAdapter, GitResult } from '../adapters.js'

export interface GitResolverOptions {
  git: GitAdapter
  /** Per git command. */
  timeoutMs: number
  /** The directory git runs in (the assembly's working directory). */
  cwdOf: (context: AssembleContext) => string
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
 * the key absent rather than failing the assembly.
 */
export function gitResolver(options: GitResolverOptions): VariableResolver {
  return {
    namespace: 'git',
    describe: () => CATALOG.map((info) => ({ ...info })),
    async resolve(keys, context) {
      const cwd = options.cwdOf(context)
      const run = (args: string[]): Promise<GitResult> =>
        options.git.run(args, { cwd, timeoutMs: options.timeoutMs })
      const values = await Promise.all(
        keys.map((key) =>
          key === 'git:branch' ? currentBranch(run) : key === 'git:status' ? statusSummary(run) : null,
        ),
      )
      return new Map(keys.map((key, i) => [key, values[i] ?? null]))
    },
  }
}

type Run = (args: string[]) => Promise<GitResult>

/**
 * The branch HEAD points at (an unborn branch included), else
 * `(detached at abc1234)`. The second command runs only when the first says
 * HEAD is not a branch, never after git went missing or timed out.
 */
async function currentBranch(run: Run): Promise<string | null> {
  const ref = await run(['symbolic-ref', '--quiet', '--short', 'HEAD'])
  if (ref.ok) return ref.stdout.trim() || null
  if (ref.failure !== 'error') return null
  const head = await run(['rev-parse', '--short', 'HEAD'])
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
  const result = await run(['status', '--porcelain=v2', '-z', '--untracked-files=normal'])
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
