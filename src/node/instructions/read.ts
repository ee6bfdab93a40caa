import { dirname } from 'node:path'
import { hashText } from '../../shared/hash.js'
import type { DenyList } from '../deny-list.js'
import { nodeHash } from '../node-hash.js'
import { isInside, readConfinedFile, readFailureText } from '../safe-read.js'
import type { DiscoveryContext } from './context.js'
import type { LoadedFile } from './loaded.js'
import { harnessName } from './withheld.js'

/**
 * Bytes read from one instruction file. Instruction files are a few
 * kilobytes; a larger one is cut here, marked truncated and reported, so a
 * stray multi-megabyte file cannot stall discovery.
 */
export const READ_LIMIT = 1 << 20

export type { LoadedFile } from './loaded.js'

/** Why a file could not be loaded (a permission, a loop, a FIFO, a binary file are all `unreadable`, told apart by `why`). */
export type LoadFailure = 'outside-root' | 'missing' | 'unreadable' | 'denied'

/** A file that could not be loaded: the code, and `why` in words (`cannot be read: permission denied`). */
export interface LoadRefusal {
  failure: LoadFailure
  why: string
  /** Where a link leads, when the file it resolves to was refused (`denied`, `outside-root`). */
  target?: string
  /** The deny-list entry matched (`denied`). */
  entry?: string
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
      return {
        failure: outcome.reason,
        why,
        ...(outcome.target === undefined ? {} : { target: outcome.target }),
        ...(outcome.detail === undefined ? {} : { entry: outcome.detail }),
      }
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

/** Where a found file belongs: with the global files, the project's, or loaded on demand for some working paths. */
export type FoundPlace = 'global' | 'project' | { loadedFor: string[] }

/**
 * Loads a file a walk, a rule directory or a harness setting found: the
 * deny-list applies to its name and to the file a link resolves to, and its
 * real path must stay inside `roots`. A refusal is recorded as a diagnostic
 * and a decision; a file that the harness would send but that safety
 * withholds (denied, or a link leading outside) is also recorded as
 * withheld, in its place in load order. `undefined` when it was not read.
 */
export async function loadFound(
  context: DiscoveryContext,
  path: string,
  roots: readonly string[],
  place: FoundPlace = 'project',
): Promise<LoadedFile | undefined> {
  const loaded = await loadFile(context, path, roots, context.denyList)
  if (!isRefusal(loaded)) {
    context.loaded(path)
    return loaded
  }
  const shown = context.display(path)
  if (loaded.failure === 'denied' || loaded.failure === 'outside-root') {
    const reason = withheldReason(context, loaded, roots)
    const first = context.withhold(
      {
        path,
        code: loaded.failure,
        reason,
        when: typeof place === 'string' ? 'start' : 'on-demand',
        ...(typeof place === 'string' ? {} : { loadedFor: place.loadedFor }),
      },
      place === 'global',
    )
    if (first)
      context.report(
        loaded.failure,
        `${shown}: ${reason}; it was not read${wouldSend(context)}. ${withheldAdvice(loaded)}`,
        path,
      )
  } else if (loaded.failure === 'missing') {
    context.skip(path, 'missing', `${shown} disappeared or is a dangling link`)
  } else {
    context.report('unreadable', `${shown} ${loaded.why}; it was skipped.`, path)
    context.skip(path, 'unreadable', `${shown} ${loaded.why}`)
  }
  return undefined
}

/**
 * Why a found file was withheld, in words that stand after its path or
 * alone in a mark: `links to .git/config, a denied file (…)`, `a denied
 * file (…)`, `links to ~/notes.md, outside .`.
 */
function withheldReason(context: DiscoveryContext, refusal: LoadRefusal, roots: readonly string[]): string {
  const target = refusal.target === undefined ? undefined : where(context, refusal.target)
  if (refusal.failure === 'denied')
    return target === undefined
      ? `a denied file (\`${refusal.entry}\` is on the deny-list of secret-bearing files)`
      : `links to ${target}, a denied file (\`${refusal.entry}\` is on the deny-list of secret-bearing files)`
  const inside = roots
    .map((root) => (root === context.root ? 'the project' : where(context, root)))
    .join(', ')
  return target === undefined ? `leads outside ${inside}` : `links to ${target}, outside ${inside}`
}

/** A path in a message: as `display` shows it inside the project or the home directory, else absolute (not `../../..`). */
function where(context: DiscoveryContext, path: string): string {
  return isInside(context.root, path) || isInside(context.home, path) ? context.display(path) : path
}

function wouldSend(context: DiscoveryContext): string {
  const name = harnessName(context.mode)
  return name === undefined ? '' : ` (${name} would send it)`
}

function withheldAdvice(refusal: LoadRefusal): string {
  if (refusal.failure === 'outside-root') return 'Replace the link with the file itself.'
  return refusal.target === undefined
    ? 'Pass --allow-file (`allowFiles`) to read it anyway.'
    : 'Replace the link with the file it stands for, or pass --allow-file (`allowFiles`) to read the target anyway.'
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
