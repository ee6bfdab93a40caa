import { dirname } from 'node:path'
import { hashText } from '../../shared/hash.js'
import type { DenyList } from '../deny-list.js'
import { nodeHash } from '../node-hash.js'
import { readConfinedFile, readFailureText } from '../safe-read.js'
import type { DiscoveryContext } from './context.js'

/**
 * Bytes read from one instruction file. Instruction files are a few
 * kilobytes; a larger one is cut here, marked truncated and reported, so a
 * stray multi-megabyte file cannot stall discovery.
 */
export const READ_LIMIT = 1 << 20

/** A file read for discovery. */
export interface LoadedFile {
  /** The path as found (its directory real, the file itself possibly a link). */
  path: string
  /** Where it really is, links resolved: what cycle checks compare. */
  realPath: string
  text: string
  /** Size on disk in bytes. */
  bytes: number
  hash: string
  /** Cut by `READ_LIMIT`. */
  readTruncated: boolean
}

/** Why a file could not be loaded (a permission, a loop, a FIFO, a binary file are all `unreadable`, told apart by `why`). */
export type LoadFailure = 'outside-root' | 'missing' | 'unreadable' | 'denied'

/** A file that could not be loaded: the code, and `why` in words (`cannot be read: permission denied`). */
export interface LoadRefusal {
  failure: LoadFailure
  why: string
}

/** Whether `loadFile` refused. */
export function isRefusal(loaded: LoadedFile | LoadRefusal): loaded is LoadRefusal {
  return 'failure' in loaded
}

/** Whether a regular file (or a link to one) is at `path`. */
export async function isFile(context: DiscoveryContext, path: string): Promise<boolean> {
  const found = await context.fs.stat(path).catch(() => undefined)
  return found?.kind === 'file'
}

/**
 * Reads an instruction file through `readConfinedFile`, the one place that
 * reads files a user names: its real path must stay inside `roots`. An
 * import passes the deny-list (`.git/`, `.env`, keys…), which discovered
 * instruction files, found by their own names, do not need.
 */
export async function loadFile(
  context: DiscoveryContext,
  path: string,
  roots: readonly string[],
  denyList?: DenyList,
): Promise<LoadedFile | LoadRefusal> {
  const outcome = await readConfinedFile(path, dirname(path), {
    roots,
    maxBytes: READ_LIMIT,
    fs: context.fs,
    ...(denyList === undefined ? {} : { denyList }),
  })
  if (!outcome.ok) {
    const why = readFailureText(outcome, READ_LIMIT)
    if (outcome.reason === 'outside-root' || outcome.reason === 'missing' || outcome.reason === 'denied')
      return { failure: outcome.reason, why }
    return { failure: 'unreadable', why }
  }
  if (outcome.truncated) {
    context.report(
      'read-limit',
      `${context.display(path)} is larger than ${READ_LIMIT} bytes; only its first ${READ_LIMIT} bytes were read. Split it into smaller files.`,
      path,
    )
  }
  return {
    path,
    realPath: outcome.realPath,
    text: outcome.text,
    bytes: outcome.size,
    // node:crypto's sha256 (the same digest as the pure default, several times faster).
    hash: hashText(outcome.text, nodeHash),
    readTruncated: outcome.truncated,
  }
}

/**
 * Loads a file a walk found, recording a diagnostic and a decision when it
 * cannot be read; `undefined` then.
 */
export async function loadFound(
  context: DiscoveryContext,
  path: string,
  roots: readonly string[],
): Promise<LoadedFile | undefined> {
  const loaded = await loadFile(context, path, roots)
  if (!isRefusal(loaded)) return loaded
  const shown = context.display(path)
  if (loaded.failure === 'outside-root') {
    context.report(
      'outside-root',
      `${shown} resolves outside ${roots.join(', ')} (a link pointing elsewhere); it was not read. Replace the link with the file itself.`,
      path,
    )
    context.skip(path, 'outside-root', `${shown} resolves outside ${roots.join(', ')}, so it was not read`)
  } else if (loaded.failure === 'missing') {
    context.skip(path, 'missing', `${shown} disappeared or is a dangling link`)
  } else {
    context.report('unreadable', `${shown} ${loaded.why}; it was skipped.`, path)
    context.skip(path, 'unreadable', `${shown} ${loaded.why}`)
  }
  return undefined
}

/** The diagnostic code and the words for an import that could not be loaded. */
export function importFailure(
  refusal: LoadRefusal,
  roots: readonly string[],
): { code: 'import-outside-root' | 'import-missing' | 'import-denied' | 'unreadable'; what: string } {
  if (refusal.failure === 'outside-root')
    return { code: 'import-outside-root', what: `lies outside ${roots.join(', ')}` }
  if (refusal.failure === 'missing') return { code: 'import-missing', what: 'does not exist' }
  if (refusal.failure === 'denied') return { code: 'import-denied', what: refusal.why }
  return { code: 'unreadable', what: refusal.why }
}
