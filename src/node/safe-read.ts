import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { FileSystemAdapter } from './adapters.js'

/** Bytes inspected for a NUL when deciding that a file is binary. */
const BINARY_SNIFF = 8192

export type ReadOutcome =
  | { ok: true; text: string; realPath: string; size: number; truncated: boolean }
  | { ok: false; reason: 'outside-root' | 'invalid-path' | 'missing' | 'not-a-file' | 'binary' }

export interface ReadOptions {
  /** Directories the real path must stay inside (each itself resolved to its real path by the caller or here). */
  roots: readonly string[]
  /** Bytes kept; a larger file is cut (at a character boundary) and marked `truncated`. */
  maxBytes: number
  fs: FileSystemAdapter
}

/** Whether `path` is `root` or lies below it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

/**
 * Reads a text file confined to `roots`: the one place sysprompt reads a
 * file that a template or instruction names (SPEC §3, §6).
 *
 * `path` may be relative (to `base`) or absolute. The real path, symlinks
 * resolved, must lie inside a root; NUL bytes, directories, devices and
 * FIFOs are refused without ever blocking (the adapter opens non-blocking
 * and checks what it opened), binary files (a NUL in the first 8 KiB) are
 * refused, and a file over `maxBytes` is cut at a character boundary. A
 * refusal says only why, never what the file holds.
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
  if (!options.roots.some((r) => isInside(resolve(r), lexical)) && !roots.some((r) => isInside(r, lexical))) {
    return { ok: false, reason: 'outside-root' }
  }
  let real: string
  try {
    real = await fs.realpath(lexical)
  } catch {
    return { ok: false, reason: 'missing' }
  }
  if (!roots.some((r) => isInside(r, real))) return { ok: false, reason: 'outside-root' }
  let read: Awaited<ReturnType<FileSystemAdapter['readFile']>>
  try {
    const s = await fs.stat(real)
    if (s.kind !== 'file') return { ok: false, reason: 'not-a-file' }
    read = await fs.readFile(real, options.maxBytes)
  } catch {
    return { ok: false, reason: 'missing' }
  }
  if (read === undefined) return { ok: false, reason: 'not-a-file' }
  const { bytes, size } = read
  const sniff = bytes.subarray(0, BINARY_SNIFF)
  if (sniff.includes(0)) return { ok: false, reason: 'binary' }
  const truncated = size > bytes.length
  // A cut can split a multi-byte character: drop its partial bytes before
  // decoding (a genuine U+FFFD at the cut stays).
  const kept = truncated ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(kept)
  return { ok: true, text, realPath: real, size, truncated }
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
