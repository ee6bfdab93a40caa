import type { OnDemandTrigger } from './discovery-results.js'

/* What discovery read, as data: the context holds these and `read.ts` and `on-demand.ts` make them. */

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

/** A file a mode found that the harness loads only when the agent works near it. */
export interface OnDemandCandidate {
  loaded: LoadedFile
  trigger: OnDemandTrigger
  /** The text the harness delivers for it (front matter removed, trimmed, … as the mode sends it). */
  text: string
}

/** Why a directory was left out of a nested walk, in words for `explain`. */
export interface LeftOut {
  /** `ignored`: an ignore file's rule; `never`: VCS metadata, `node_modules` or the deny-list. */
  kind: 'ignored' | 'never'
  words: string
}
