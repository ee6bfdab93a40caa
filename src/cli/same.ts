import { relative, sep } from 'node:path'
import { type HarnessLoad, normalText, textsFor } from '../node/report/harness-loads.js'

/** The first place two harnesses differ for one working path: who loads which file that the other does not see. */
export interface SameDifference {
  /** `cwd` for the session start, else the working path shown relative to the root. */
  path: string
  /** The mode that loads the text, and the one that does not. */
  has: string
  lacks: string
  /** The file (absolute) whose text only `has` sends. */
  file: string
  message: string
}

/** A file one harness would send for a working path that sysprompt withholds: a known difference, not a mismatch. */
export interface SameWithheld {
  path: string
  mode: string
  /** The file (absolute). */
  file: string
  reason: string
}

/** What each harness would send for `path` (or at start) that sysprompt withholds (links to denied files, home names a repository adds). */
export function withheldFor(
  loads: readonly HarnessLoad[],
  path: string | undefined,
  root: string,
  cwd: string,
): SameWithheld[] {
  const where = path === undefined ? rel(root, cwd) : rel(root, path)
  return loads.flatMap((load) =>
    load.discovery.withheld
      .filter((w) => w.when === 'start' || (path !== undefined && (w.loadedFor ?? []).includes(path)))
      .map((w) => ({ path: where, mode: load.mode, file: w.path, reason: w.reason })),
  )
}

function rel(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || '.'
}

/**
 * Compares the instruction texts each harness sends for `path` (each after
 * its own cut, at start plus late-bound for the path) as sets: order,
 * framing and which file name carries a text are ignored. The first
 * harness is the reference; the first text one side has and the other
 * lacks is the difference, `undefined` when every set is equal. A side
 * that withholds files (`withheldFor`) may lack as many texts as it
 * withholds: what it withholds was never read, so those are known
 * differences, not mismatches.
 */
export function firstDifference(
  loads: readonly HarnessLoad[],
  path: string | undefined,
  root: string,
  cwd: string,
): SameDifference | undefined {
  const where = path === undefined ? rel(root, cwd) : rel(root, path)
  const sets = loads.map((load) => {
    const texts = textsFor(load, path).filter((t) => normalText(t.text).length > 0)
    const held = withheldFor([load], path, root, cwd).length
    return { mode: load.mode, texts, keys: new Set(texts.map((t) => normalText(t.text))), held }
  })
  const [first, ...rest] = sets
  if (first === undefined) return undefined
  for (const other of rest) {
    for (const [a, b] of [
      [first, other],
      [other, first],
    ] as const) {
      // The first texts `b` lacks may be what it withholds, one for each withheld file.
      const extra = a.texts.filter((t) => !b.keys.has(normalText(t.text)))[b.held]
      if (extra === undefined) continue
      const file = rel(root, extra.path)
      return {
        path: where,
        has: a.mode,
        lacks: b.mode,
        file: extra.path,
        message: `for ${path === undefined ? `the working directory ${where}` : where}, ${a.mode} loads the text of ${file}, which ${b.mode} does not see`,
      }
    }
  }
  return undefined
}
