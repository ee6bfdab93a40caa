import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { FileSystemAdapter } from './adapters.js'
import type { DenyList } from './deny-list.js'

/** Bytes inspected for a NUL when deciding that a file is binary. */
const BINARY_SNIFF = 8192

/**
 * Why a file was not read, one reason per cause (so a message never calls a
 * permission problem "missing"): a path that leaves the roots, a bad path,
 * nothing there, not a regular file (directory, FIFO, device), binary,
 * permission denied, a symlink loop, over the cap (with `oversize:
 * 'refuse'`), on the deny-list, or another OS error (`unreadable`).
 */
export type ReadFailure =
  | 'outside-root'
  | 'invalid-path'
  | 'missing'
  | 'not-a-file'
  | 'binary'
  | 'permission-denied'
  | 'symlink-loop'
  | 'too-large'
  | 'denied'
  | 'unreadable'

export type ReadOutcome =
  | { ok: true; text: string; realPath: string; size: number; truncated: boolean }
  | {
      ok: false
      reason: ReadFailure
      /** The file's size, for `too-large`. */
      size?: number
      /** The deny-list entry matched (`denied`) or the OS error code (`unreadable`). */
      detail?: string
      /**
       * The real path the name resolves to, when that file (not the name
       * asked for) was refused: a link to a denied file (`denied`) or to a
       * file outside the roots (`outside-root`).
       */
      target?: string
    }

/** What every read checks: size, type and bytes. */
export interface CheckedReadOptions {
  /** Bytes kept; what happens to a larger file is `oversize`'s choice. */
  maxBytes: number
  /** `truncate` (default: cut at a character boundary, marked `truncated`) or `refuse` (`too-large`). */
  oversize?: 'truncate' | 'refuse'
  fs: FileSystemAdapter
}

export interface ReadOptions extends CheckedReadOptions {
  /** Directories the real path must stay inside (each itself resolved to its real path by the caller or here). */
  roots: readonly string[]
  /** Names never read below a root (`.git/`, `.env`, keys…); none when absent. */
  denyList?: DenyList
}

/** Whether `path` is `root` or lies below it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

/** An OS error as its reason. */
function failureOf(error: unknown): Extract<ReadOutcome, { ok: false }> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'missing' }
  if (code === 'EACCES' || code === 'EPERM') return { ok: false, reason: 'permission-denied' }
  if (code === 'ELOOP') return { ok: false, reason: 'symlink-loop' }
  if (code === 'EISDIR') return { ok: false, reason: 'not-a-file' }
  return { ok: false, reason: 'unreadable', detail: code ?? (error as Error | undefined)?.message ?? 'error' }
}

/**
 * Reads a text file confined to `roots`: the one place sysprompt reads a
 * file that a template, instruction file or repository names (SPEC §3, §6).
 *
 * `path` may be relative (to `base`) or absolute. The real path, symlinks
 * resolved, must lie inside a root, and so must the file actually opened:
 * the descriptor itself is checked (on Linux the real path of
 * `/proc/self/fd/N`, reported by the adapter), so a directory swapped for a
 * link between the check and the open cannot leak a file from elsewhere.
 * A path on the deny-list is refused by name (lexical and real). NUL bytes,
 * directories, devices and FIFOs are refused without ever blocking, binary
 * files (a NUL in the first 8 KiB) are refused, and a file over `maxBytes`
 * is cut at a character boundary (or refused, with `oversize: 'refuse'`).
 * A refusal says only why, never what the file holds.
 */
export async function readConfinedFile(
  path: string,
  base: string,
  options: ReadOptions,
): Promise<ReadOutcome> {
  if (path.length === 0 || path.includes('\0')) return { ok: false, reason: 'invalid-path' }
  const { fs } = options
  const lexical = resolve(base, path)
  let roots: string[]
  try {
    roots = await Promise.all(options.roots.map((r) => fs.realpath(r).catch(() => resolve(r))))
  } catch {
    return { ok: false, reason: 'invalid-path' }
  }
  // A lexical escape is refused before touching the disk at all.
  const lexicalRoot =
    options.roots.map((r) => resolve(r)).find((r) => isInside(r, lexical)) ??
    roots.find((r) => isInside(r, lexical))
  if (lexicalRoot === undefined) return { ok: false, reason: 'outside-root' }
  const denied = (root: string, p: string) => options.denyList?.match(relative(root, p).split(sep).join('/'))
  const lexicalDenied = denied(lexicalRoot, lexical)
  if (lexicalDenied !== undefined) return { ok: false, reason: 'denied', detail: lexicalDenied }
  let real: string
  try {
    real = await fs.realpath(lexical)
  } catch (error) {
    return failureOf(error)
  }
  const realRoot = roots.find((r) => isInside(r, real))
  if (realRoot === undefined) return { ok: false, reason: 'outside-root', target: real }
  // The resolved file is judged, not only the name: `AGENTS.md -> .git/config` is refused here.
  const realDenied = denied(realRoot, real)
  if (realDenied !== undefined) return { ok: false, reason: 'denied', detail: realDenied, target: real }
  return openChecked(real, options, async (opened) => {
    if (opened !== undefined) {
      const openedRoot = roots.find((r) => isInside(r, opened))
      return openedRoot !== undefined && denied(openedRoot, opened) === undefined
    }
    // An adapter that cannot name the opened file: the path is resolved
    // again, which narrows the window without closing it.
    const again = await fs.realpath(lexical).catch(() => undefined)
    return again === real
  })
}

/**
 * Reads a text file the user named (`--template`, `--tools`, a file in the
 * user's own directories): it may live anywhere, so there is no
 * confinement, but it gets every other check of `readConfinedFile` (regular
 * files only, never blocking, the size cap, the binary sniff, one reason per
 * OS error).
 */
export async function readCheckedFile(path: string, options: CheckedReadOptions): Promise<ReadOutcome> {
  if (path.length === 0 || path.includes('\0')) return { ok: false, reason: 'invalid-path' }
  let real: string
  try {
    real = await options.fs.realpath(resolve(path))
  } catch (error) {
    return failureOf(error)
  }
  return openChecked(real, options, async () => true)
}

async function openChecked(
  real: string,
  options: CheckedReadOptions,
  accept: (opened: string | undefined) => Promise<boolean>,
): Promise<ReadOutcome> {
  const { fs } = options
  let read: Awaited<ReturnType<FileSystemAdapter['readFile']>>
  try {
    const s = await fs.stat(real)
    if (s.kind !== 'file') return { ok: false, reason: 'not-a-file' }
    if (options.oversize === 'refuse' && s.size > options.maxBytes)
      return { ok: false, reason: 'too-large', size: s.size }
    read = await fs.readFile(real, options.maxBytes)
  } catch (error) {
    return failureOf(error)
  }
  if (read === undefined) return { ok: false, reason: 'not-a-file' }
  if (!(await accept(read.realPath))) return { ok: false, reason: 'outside-root' }
  const { bytes, size } = read
  if (options.oversize === 'refuse' && size > options.maxBytes)
    return { ok: false, reason: 'too-large', size }
  const sniff = bytes.subarray(0, BINARY_SNIFF)
  if (sniff.includes(0)) return { ok: false, reason: 'binary' }
  const truncated = size > bytes.length
  // A cut can split a multi-byte character: drop its partial bytes before
  // decoding (a genuine U+FFFD at the cut stays).
  const kept = truncated ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(kept)
  return { ok: true, text, realPath: read.realPath ?? real, size, truncated }
}

/** Bytes as a short figure: `1 MiB`, `256 KiB`, `900 bytes`. */
export function formatBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`
  return `${n} bytes`
}

/**
 * The one-line reason for a refused read, to follow the file's path:
 * `docs/x.md is binary (…)`. `maxBytes` is the cap that was applied.
 */
export function readFailureText(outcome: Extract<ReadOutcome, { ok: false }>, maxBytes?: number): string {
  switch (outcome.reason) {
    case 'outside-root':
      return 'leads outside the project (a symbolic link or `..`), so it was not read'
    case 'invalid-path':
      return 'is not a valid path'
    case 'missing':
      return 'does not exist (or is a dangling link)'
    case 'not-a-file':
      return 'is not a regular file (a directory, FIFO or device)'
    case 'binary':
      return 'is binary (a NUL byte in its first 8 KiB), not text'
    case 'permission-denied':
      return 'cannot be read: permission denied'
    case 'symlink-loop':
      return 'is a symbolic link loop'
    case 'too-large':
      return `is larger than ${maxBytes === undefined ? 'the cap' : formatBytes(maxBytes)}${outcome.size === undefined ? '' : ` (${outcome.size} bytes)`}`
    case 'denied':
      return `is on the deny-list of secret-bearing files (\`${outcome.detail}\`); pass --allow-file (\`allowFiles\`) to read it anyway`
    case 'unreadable':
      return `could not be read (${outcome.detail ?? 'error'})`
  }
}

/** The length of `bytes` without a UTF-8 sequence cut short at its end. */
function completeUtf8Length(bytes: Uint8Array): number {
  const n = bytes.length
  // Step back over continuation bytes (at most three) to the last lead byte.
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const b = bytes[i]!
    if ((b & 0xc0) === 0x80) continue
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
    return need > n - i ? i : n
  }
  return n
}
