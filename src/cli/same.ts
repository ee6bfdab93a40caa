import { relative, sep } from 'node:path'
import { type HarnessLoad, normalText, textsFor } from './harness-loads.js'

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

function rel(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || '.'
}

/**
 * Compares the instruction texts each harness sends for `path` (each after
 * its own cut, at start plus late-bound for the path) as sets: order,
 * framing and which file name carries a text are ignored. The first
 * harness is the reference; the first text one side has and the other
 * lacks is the difference, `undefined` when every set is equal.
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
    return { mode: load.mode, texts, keys: new Set(texts.map((t) => normalText(t.text))) }
  })
  const [first, ...rest] = sets
  if (first === undefined) return undefined
  for (const other of rest) {
    for (const [a, b] of [
      [first, other],
      [other, first],
    ] as const) {
      const extra = a.texts.find((t) => !b.keys.has(normalText(t.text)))
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
