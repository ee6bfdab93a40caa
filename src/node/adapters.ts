import type { ChildProcess } from 'node:child_process'
import { constants } from 'node:fs'
import { open, readlink, realpath, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { homedir, hostname, platform, release } from 'node:os'

// `node:child_process` (and the `net` and `dgram` modules it loads) is
// required when git first runs, not when the adapters load: a command that
// runs no git does not pay for loading it.
const requireBuiltin = createRequire(import.meta.url)
type ChildProcessModule = typeof import('node:child_process')
const childProcess = (): ChildProcessModule => requireBuiltin('node:child_process') as ChildProcessModule

/** The clock. Injected so tests never read the real time. */
export interface ClockAdapter {
  now(): Date
}

export interface FileStat {
  kind: 'file' | 'directory' | 'other'
  size: number
}

/** The few file operations the node layer needs; every read goes through `safe-read.ts`. */
/** One directory entry, as `readdir` with file types gives it (links not followed). */
export interface DirEntry {
  name: string
  isFile(): boolean
  isDirectory(): boolean
  isSymbolicLink(): boolean
}

export interface FileSystemAdapter {
  /**
   * The entries of a directory; rejects when it cannot be listed. Optional:
   * without it discovery lists directories itself (`listDir`).
   */
  readdir?(path: string): Promise<DirEntry[]>
  /** The real path (symlinks resolved); rejects when missing. */
  realpath(path: string): Promise<string>
  /** `stat` (following symlinks); rejects when missing. */
  stat(path: string): Promise<FileStat>
  /**
   * Reads at most `maxBytes` of a regular file. Must never block on a FIFO or
   * device: resolves `undefined` when the opened thing is not a regular file.
   * `realPath` is where the opened descriptor really is (on Linux the target
   * of `/proc/self/fd/N`), when the platform can tell: what confined reads
   * check, so a path swapped between their check and this open is caught.
   */
  readFile(
    path: string,
    maxBytes: number,
  ): Promise<{ bytes: Uint8Array; size: number; realPath?: string } | undefined>
}

export interface GitResult {
  ok: boolean
  stdout: string
  /** Why it failed: `missing` (no git on PATH), `timeout`, or `error` (non-zero exit). */
  failure?: 'missing' | 'timeout' | 'error'
  /** The exit code, when git exited. */
  exitCode?: number
  /** The first few KiB of what git wrote to stderr (why it failed), when it exited. */
  stderr?: string
}

export interface GitAdapter {
  run(args: string[], options: { cwd: string; timeoutMs: number }): Promise<GitResult>
}

export interface OsAdapter {
  platform(): string
  release(): string
  hostname(): string
  homedir(): string
  env(name: string): string | undefined
}

export interface Adapters {
  clock: ClockAdapter
  fs: FileSystemAdapter
  git: GitAdapter
  os: OsAdapter
}

const systemClock: ClockAdapter = { now: () => new Date() }

const nodeFs: FileSystemAdapter = {
  realpath: (path) => realpath(path),
  async stat(path) {
    const s = await stat(path)
    return { kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size }
  },
  async readFile(path, maxBytes) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below
    // then refuses anything that is not a regular file before reading.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
    try {
      const s = await handle.stat()
      if (!s.isFile()) return undefined
      const realPath = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
      const length = Math.min(s.size, maxBytes)
      const bytes = new Uint8Array(length)
      let read = 0
      while (read < length) {
        const { bytesRead } = await handle.read(bytes, read, length - read, read)
        if (bytesRead === 0) break
        read += bytesRead
      }
      return {
        bytes: read === length ? bytes : bytes.subarray(0, read),
        size: s.size,
        ...(realPath === undefined ? {} : { realPath }),
      }
    } finally {
      await handle.close()
    }
  },
}

/** How the real git adapter finds and starts git. */
export interface NodeGitOptions {
  /** The git executable, looked up on the `PATH` of `env` unless it is a path. Defaults to `git`. */
  command?: string
  /** The environment git starts from (defaults to `process.env`); the no-prompt settings are always added. */
  env?: NodeJS.ProcessEnv
  /** Stdout kept; a command printing more fails with `error`. Defaults to 8 MiB. */
  maxOutputBytes?: number
}

/**
 * Variables that point git at a repository other than the one found from
 * `cwd` (what `git rev-parse --local-env-vars` lists). A harness started from
 * a git hook inherits them; git must still answer for the directory asked.
 */
const REPOSITORY_ENV = [
  // Commands and settings the environment could add; git must run none (SPEC §3).
  'GIT_EXTERNAL_DIFF',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_PROXY_COMMAND',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_TRACE',
  'GIT_TRACE2',
  'GIT_TRACE2_EVENT',
  'GIT_TRACE2_PERF',
  'GIT_ATTR_SOURCE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_KEY_0',
  'GIT_CONFIG_VALUE_0',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_OBJECT_DIRECTORY',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_GRAFT_FILE',
  'GIT_INDEX_FILE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_REPLACE_REF_BASE',
  'GIT_PREFIX',
  'GIT_INTERNAL_SUPER_PREFIX',
  'GIT_SHALLOW_FILE',
  'GIT_COMMON_DIR',
]

function gitEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base }
  for (const name of REPOSITORY_ENV) delete env[name]
  return {
    ...env,
    // Never prompt: no terminal prompt, no credential helper, no pager.
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_PAGER: 'cat',
    GCM_INTERACTIVE: 'never',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    // No system or user config: only the repository's own config (whose
    // commands the flags below disable) shapes what git reports.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_NO_LAZY_FETCH: '1',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    NO_COLOR: '1',
  }
}

/**
 * Command-line settings (they win over every config file) that switch off
 * each command a repository's configuration can name: the fsmonitor hook,
 * hooks, the pager, external diff, ssh, credential helpers, askpass, and
 * protocol access; plus colour off and no embedded bare repositories.
 * Filter and diff drivers have names of the repository's choosing, so the
 * git resolver disables those by name (`gitDriverOverrides`).
 */
export const GIT_SAFE_CONFIG: readonly string[] = [
  'core.quotepath=off',
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.askPass=',
  'core.sshCommand=',
  'core.gitProxy=',
  'core.untrackedCache=false',
  'core.alternateRefsCommand=',
  'credential.helper=',
  'diff.external=',
  'color.ui=false',
  'color.status=false',
  'pager.status=false',
  'protocol.allow=never',
  'safe.bareRepository=explicit',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'diff.ignoreSubmodules=all',
]

/**
 * The real git adapter (SPEC §3): runs git without a shell, stdin closed and
 * in a process group of its own with no controlling terminal, so it can never
 * prompt. On timeout the whole group is killed and the call resolves at once,
 * even if a grandchild (a hook, ssh, a credential helper) still holds the
 * output pipe open; waiting for the pipe to close is what made a hung git
 * hang its caller.
 */
export function nodeGitAdapter(options: NodeGitOptions = {}): GitAdapter {
  const command = options.command ?? 'git'
  const maxOutput = options.maxOutputBytes ?? 8 << 20
  return {
    run(args, { cwd, timeoutMs }) {
      return new Promise((resolve) => {
        let settled = false
        const chunks: Buffer[] = []
        let length = 0
        let child: ChildProcess | undefined
        const finish = (result: GitResult, kill = false): void => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          if (kill) killGroup(child)
          resolve(result)
        }
        const timer = setTimeout(() => finish({ ok: false, stdout: '', failure: 'timeout' }, true), timeoutMs)
        try {
          child = childProcess().spawn(
            command,
            [
              ...GIT_SAFE_CONFIG.flatMap((setting) => ['-c', setting]),
              '--no-optional-locks',
              '--no-pager',
              ...args,
            ],
            {
              cwd,
              env: gitEnv(options.env ?? process.env),
              stdio: ['ignore', 'pipe', 'pipe'],
              detached: process.platform !== 'win32',
              windowsHide: true,
            },
          )
        } catch {
          clearTimeout(timer)
          resolve({ ok: false, stdout: '', failure: 'missing' })
          return
        }
        let stderr = ''
        child.stderr?.on('data', (chunk: Buffer) => {
          if (stderr.length < 4096) stderr += chunk.toString('utf8').slice(0, 4096 - stderr.length)
        })
        child.stdout?.on('data', (chunk: Buffer) => {
          length += chunk.length
          if (length > maxOutput) return finish({ ok: false, stdout: '', failure: 'error' }, true)
          chunks.push(chunk)
        })
        child.on('error', (error: NodeJS.ErrnoException) => {
          // ENOENT is also what a missing `cwd` reports: either way git cannot answer for it.
          finish({ ok: false, stdout: '', failure: error.code === 'ENOENT' ? 'missing' : 'error' })
        })
        child.on('close', (code) => {
          if (code === 0) finish({ ok: true, stdout: Buffer.concat(chunks).toString('utf8'), exitCode: 0 })
          else
            finish({
              ok: false,
              stdout: '',
              failure: 'error',
              ...(code === null ? {} : { exitCode: code }),
              stderr,
            })
        })
      })
    },
  }
}

/** Kills git and everything it started (its process group); some of it may already be gone. */
function killGroup(child: ChildProcess | undefined): void {
  if (child?.pid === undefined) return
  try {
    if (process.platform === 'win32') child.kill('SIGKILL')
    else process.kill(-child.pid, 'SIGKILL')
  } catch {
    // Already exited between the check and the kill.
  }
}

const nodeOs: OsAdapter = {
  platform: () => platform(),
  release: () => release(),
  hostname: () => hostname(),
  homedir: () => homedir(),
  env: (name) => process.env[name],
}

/** The real adapters, with any of them replaced. */
export function nodeAdapters(overrides: Partial<Adapters> = {}): Adapters {
  return { clock: systemClock, fs: nodeFs, git: nodeGitAdapter(), os: nodeOs, ...overrides }
}
