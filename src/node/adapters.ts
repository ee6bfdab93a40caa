import { execFile } from 'node:child_process'
import { constants } from 'node:fs'
import { open, realpath, stat } from 'node:fs/promises'
import { homedir, hostname, platform, release } from 'node:os'

/** The clock. Injected so tests never read the real time. */
export interface ClockAdapter {
  now(): Date
}

export interface FileStat {
  kind: 'file' | 'directory' | 'other'
  size: number
}

/** The few file operations the node layer needs; every read goes through `safe-read.ts`. */
export interface FileSystemAdapter {
  /** The real path (symlinks resolved); rejects when missing. */
  realpath(path: string): Promise<string>
  /** `stat` (following symlinks); rejects when missing. */
  stat(path: string): Promise<FileStat>
  /**
   * Reads at most `maxBytes` of a regular file. Must never block on a FIFO or
   * device: resolves `undefined` when the opened thing is not a regular file.
   */
  readFile(path: string, maxBytes: number): Promise<{ bytes: Uint8Array; size: number } | undefined>
}

export interface GitResult {
  ok: boolean
  stdout: string
  /** Why it failed: `missing` (no git on PATH), `timeout`, or `error` (non-zero exit). */
  failure?: 'missing' | 'timeout' | 'error'
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
      const length = Math.min(s.size, maxBytes)
      const bytes = new Uint8Array(length)
      let read = 0
      while (read < length) {
        const { bytesRead } = await handle.read(bytes, read, length - read, read)
        if (bytesRead === 0) break
        read += bytesRead
      }
      return { bytes: read === length ? bytes : bytes.subarray(0, read), size: s.size }
    } finally {
      await handle.close()
    }
  },
}

const nodeGit: GitAdapter = {
  run(args, { cwd, timeoutMs }) {
    return new Promise((resolve) => {
      execFile(
        'git',
        ['-c', 'core.quotepath=off', '--no-optional-locks', ...args],
        {
          cwd,
          timeout: timeoutMs,
          killSignal: 'SIGKILL',
          maxBuffer: 1 << 20,
          // Never prompt: no terminal prompt, no credential helper, no pager.
          env: {
            ...process.env,
            GIT_TERMINAL_PROMPT: '0',
            GIT_ASKPASS: '',
            SSH_ASKPASS: '',
            GIT_PAGER: 'cat',
            GCM_INTERACTIVE: 'never',
            LC_ALL: 'C',
          },
          windowsHide: true,
        },
        (error, stdout) => {
          if (error === null) return resolve({ ok: true, stdout })
          const e = error as NodeJS.ErrnoException & { killed?: boolean }
          if (e.code === 'ENOENT') return resolve({ ok: false, stdout: '', failure: 'missing' })
          if (e.killed === true) return resolve({ ok: false, stdout: '', failure: 'timeout' })
          resolve({ ok: false, stdout: '', failure: 'error' })
        },
      )
    })
  },
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
  return { clock: systemClock, fs: nodeFs, git: nodeGit, os: nodeOs, ...overrides }
}
