import type { RecordedUsage } from '../compile/call-record.js'
import type { ParsedPart } from './parse/types.js'

type PartKey = Pick<ParsedPart, 'kind' | 'hash'>

/** A thread of one conversation as the recorder tracks it while it runs. */
export interface Thread {
  session: string
  /** Its latest prefix: each part's kind and hash, in order. */
  latest: PartKey[]
  /** Its latest version's number and hash (the ledger's compare-and-set value). */
  version: number
  versionHash: string
  /** Its latest call with usage, for the colder-call engine. */
  previous?: { call: number; usage: RecordedUsage }
}

/** The hashes of the first system block and the first tool of a prefix. */
function anchors(parts: readonly PartKey[]): Set<string> {
  const found = new Set<string>()
  const system = parts.find((p) => p.kind === 'system')
  const tool = parts.find((p) => p.kind === 'tool')
  if (system !== undefined) found.add(system.hash)
  if (tool !== undefined) found.add(tool.hash)
  return found
}

function sharedLead(a: readonly PartKey[], b: readonly PartKey[]): number {
  let n = 0
  while (n < a.length && n < b.length && a[n]!.hash === b[n]!.hash) n++
  return n
}

/**
 * The thread a request joins within its conversation (issue 33): the one
 * whose latest prefix shares the most leading parts with it, as long as
 * they share the first system block or the first tool; none (a new thread:
 * a side call with a prompt of its own, such as a title request) otherwise.
 * A changed instruction file, tool or model inside a thread is a new
 * version of it, never a new thread.
 */
export function joinThread(threads: readonly Thread[], parts: readonly PartKey[]): Thread | undefined {
  const mine = anchors(parts)
  let best: Thread | undefined
  let most = -1
  for (const thread of threads) {
    const theirs = anchors(thread.latest)
    if (![...mine].some((h) => theirs.has(h))) continue
    const n = sharedLead(thread.latest, parts)
    if (n > most) {
      best = thread
      most = n
    }
  }
  return best
}
