import { resolve } from 'node:path'
import type { AssembleContext, VariableResolver } from '../registry/types.js'
import { type Adapters, nodeAdapters } from './adapters.js'
import { denyList } from './deny-list.js'
import { envResolver } from './resolvers/env.js'
import { fileResolver } from './resolvers/file.js'
import { type GitDiagnostic, gitResolver } from './resolvers/git.js'
import { projectResolver } from './resolvers/project.js'
import { promptResolver } from './resolvers/prompt.js'
import { ResolverOptionError, systemResolver } from './resolvers/system.js'

export type { GitDiagnostic }
export { ResolverOptionError }

export interface NodeResolversOptions {
  /**
   * The confinement boundary: `file:` paths stay inside it (or an extra
   * root), `project:root` is it or a directory below it holding `.git`, and
   * `project:instructions` reads nothing above it. The default working directory.
   */
  root: string
  /** The working directory when the assembly context gives none; defaults to `root`. */
  cwd?: string
  /** More directories `file:` may read from. */
  extraRoots?: string[]
  /** The only names `env:<NAME>` may read; defaults to none. */
  envAllowlist?: string[]
  /**
   * Globs (relative to the root) that `file:` may read although they are on
   * the deny-list (`DEFAULT_DENY_LIST`: `.git/`, `.env*`, keys…).
   */
  allowFiles?: readonly string[]
  /** Bytes of a `file:` value kept before the truncation marker; defaults to 256 KiB. */
  fileMaxBytes?: number
  /** Per git command; defaults to 2000 ms. */
  gitTimeoutMs?: number
  /** IANA time zone of `system:date` and `system:time`; defaults to the process's. */
  timeZone?: string
  /** Replaces any of the real clock, file system, git and OS. */
  adapters?: Partial<Adapters>
  /** Told why a value is absent when git failed, timed out, is missing or the repository was refused (`lint` and `inspect` show these). */
  onDiagnostic?: (diagnostic: GitDiagnostic) => void
}

/** Default cap of a `file:` value (SPEC §3). */
export const DEFAULT_FILE_MAX_BYTES = 256 * 1024
/** Default timeout of one git command (SPEC §3). */
export const DEFAULT_GIT_TIMEOUT_MS = 2000

/**
 * The built-in resolvers of SPEC §3, one per namespace: `system`, `prompt`,
 * `git`, `file`, `project`, `env`, all reading the world through `adapters`
 * (real ones by default) so tests replace the clock, disk, git or OS. The
 * working directory of an assembly is its context's `cwd` (relative to
 * `root`), else `options.cwd`, else `root`. Each resolver computes only the
 * keys asked for: a template that never says `git:status` never runs git.
 * Bad options (a time zone the runtime does not know, a non-positive cap or
 * timeout) throw `ResolverOptionError` here rather than at the first turn.
 */
export function nodeResolvers(options: NodeResolversOptions): VariableResolver[] {
  const adapters = nodeAdapters(options.adapters)
  const root = resolve(options.root)
  const defaultCwd = resolve(root, options.cwd ?? '.')
  const cwdOf = (context: AssembleContext): string =>
    typeof context.cwd === 'string' && context.cwd !== '' ? resolve(root, context.cwd) : defaultCwd
  return [
    systemResolver({ clock: adapters.clock, os: adapters.os, timeZone: options.timeZone }),
    promptResolver({ cwdOf }),
    gitResolver({
      git: adapters.git,
      timeoutMs: positive('gitTimeoutMs', options.gitTimeoutMs, DEFAULT_GIT_TIMEOUT_MS),
      cwdOf,
      root,
      realpath: (p) => adapters.fs.realpath(p),
      ...(options.onDiagnostic === undefined ? {} : { onDiagnostic: options.onDiagnostic }),
    }),
    fileResolver({
      fs: adapters.fs,
      roots: [root, ...(options.extraRoots ?? []).map((r) => resolve(root, r))],
      maxBytes: positive('fileMaxBytes', options.fileMaxBytes, DEFAULT_FILE_MAX_BYTES),
      cwdOf,
      denyList: denyList(options.allowFiles),
    }),
    projectResolver({ fs: adapters.fs, os: adapters.os, root, cwdOf }),
    envResolver({ os: adapters.os, allowlist: options.envAllowlist ?? [] }),
  ]
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (Number.isSafeInteger(value) && value > 0) return value
  throw new ResolverOptionError(
    `nodeResolvers: ${name} must be a positive whole number, got ${String(value)}; omit it for the default ${fallback}.`,
  )
}
