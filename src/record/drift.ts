import { stat } from 'node:fs/promises'
import type { HarnessPart } from '../node/instructions/discovery-results.js'
import { discoverInstructions } from '../node/instructions/index.js'
import { splitAtMarks } from '../node/instructions/withheld.js'
import { sourceAt } from '../shared/source-map.js'
import type { RecordHarness } from './pointing.js'

/** What the drift check found for one conversation (issue 33). */
export interface DriftVerdict {
  harness: RecordHarness
  /** The harness version the requests named (undefined when unknown: the newest model is used). */
  version?: string
  /** Set when `version` is newer than the newest modelled one: the version whose model was compared. */
  modelledAs?: string
  cwd: string
  verdict: 'matches' | 'differs' | 'unavailable'
  /** For `differs`: the first difference, in the file and line it comes from when the view maps it. */
  difference?: {
    /** The view part (its placement) that differs. */
    placement: string
    file?: string
    line?: number
    /** The line as sysprompt expects it, and what the harness sent there. */
    expected: string
    sent: string
  }
  /** For `unavailable`: why. */
  reason?: string
}

export interface DriftInput {
  harness: RecordHarness
  version?: string
  /** The working directory of the request (from the harness's environment block), else `record`'s. */
  cwd: string
  home?: string
  /** Every text of the request's cacheable prefix (system blocks, the injected text of the first user message, tools). */
  sent: readonly string[]
}

/** The line of `text` around `offset`, cut to a short excerpt. */
function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  const end = text.indexOf('\n', offset)
  const line = text.slice(start, end === -1 ? undefined : end)
  return line.length > 160 ? `${line.slice(0, 157)}…` : line
}

/**
 * Where `expected` (a view part's compared text, without its marks) stops
 * matching `sent`: undefined when it stands whole in it. The search starts
 * where the part's first line stands in `sent`, so the harness's own text
 * around it does not count.
 */
function firstDifference(expected: string, sent: string): { offset: number; sentAt: number } | undefined {
  if (sent.includes(expected)) return undefined
  const lead = expected.trimStart()
  const skip = expected.length - lead.length
  const newline = lead.indexOf('\n')
  const anchor = lead.slice(0, Math.max(1, newline === -1 ? lead.length : newline))
  // The place in `sent` where most of `expected` matches: its first line may stand there more than once.
  let best = { offset: skip, sentAt: 0 }
  let tries = 0
  for (
    let at = sent.indexOf(anchor);
    at !== -1 && tries < MAX_ANCHORS;
    at = sent.indexOf(anchor, at + 1), tries++
  ) {
    let i = 0
    while (skip + i < expected.length && at + i < sent.length && expected[skip + i] === sent[at + i]) i++
    if (skip + i > best.offset) best = { offset: skip + i, sentAt: at + i }
  }
  return best
}

/** How many places of a part's first line in the sent text are tried. */
const MAX_ANCHORS = 64

function compare(part: HarnessPart, sent: string): DriftVerdict['difference'] | undefined {
  // A withheld file's mark is a known difference: each piece around the marks must be sent as is.
  const marks = [...part.marks.map((m) => m.mark), ...part.withheld.map((w) => w.mark)]
  let base = 0
  for (const piece of splitAtMarks(part.text, marks)) {
    const at = part.text.indexOf(piece, base)
    base = at + piece.length
    if (piece.trim() === '') continue
    const found = firstDifference(piece, sent)
    if (found === undefined) continue
    const offset = at + found.offset
    // A difference in the framing belongs to the file whose text follows it (a block sent for another file, or not at all).
    const next = part.sourceMap.find((s) => s.end > offset)
    const source =
      sourceAt(part.text, part.sourceMap, offset) ??
      (next === undefined ? undefined : { path: next.path, line: next.line })
    return {
      placement: part.placement,
      ...(source !== undefined && { file: source.path, line: source.line }),
      expected: lineAt(part.text, offset),
      sent: lineAt(sent, found.sentAt),
    }
  }
  return undefined
}

/**
 * The drift check: the harness view sysprompt computes for this harness,
 * version and directory, compared with the instruction text the harness
 * really sent; the first difference is named by file and line through the
 * view's source map. The instruction files are read as discovery reads
 * them (confined, deny-listed).
 */
export async function checkDrift(input: DriftInput): Promise<DriftVerdict> {
  const head = { harness: input.harness, ...(input.version && { version: input.version }), cwd: input.cwd }
  let parts: HarnessPart[]
  let modelledAs: string | undefined
  const dir = await stat(input.cwd).catch(() => undefined)
  if (dir?.isDirectory() !== true)
    return {
      ...head,
      verdict: 'unavailable',
      reason: `the working directory ${input.cwd} is not a directory here`,
    }
  try {
    const found = await discoverInstructions({
      cwd: input.cwd,
      mode: input.harness,
      ...(input.home !== undefined && { home: input.home }),
      ...(input.version !== undefined && { harnessVersion: input.version }),
    })
    parts = found.harness.parts
    modelledAs = found.profile?.modelledAs
  } catch (error) {
    return { ...head, verdict: 'unavailable', reason: (error as Error).message }
  }
  const sent = input.sent.join('\n')
  const withModel = modelledAs === undefined ? head : { ...head, modelledAs }
  for (const part of parts) {
    // Late-bound files arrive with tool results, outside the recorded prefix.
    if (part.placement === 'tool-result') continue
    const difference = compare(part, sent)
    if (difference !== undefined) return { ...withModel, verdict: 'differs', difference }
  }
  return { ...withModel, verdict: 'matches' }
}

/** The verdict in one or two lines, for the summary on stderr. */
export function driftText(v: DriftVerdict): string {
  const who = `${v.harness}${v.version ? ` ${v.version}` : ''}${v.modelledAs ? ` (compared with the newest model, ${v.modelledAs})` : ''} in ${v.cwd}`
  if (v.verdict === 'matches') return `drift: ${who}: matches sysprompt's view`
  if (v.verdict === 'unavailable') return `drift: ${who}: not checked (${v.reason})`
  const d = v.difference!
  const where = d.file === undefined ? `its ${d.placement} framing` : `${d.file}:${d.line}`
  return `drift: ${who}: differs at ${where}\n  expected: ${JSON.stringify(d.expected)}\n  sent:     ${JSON.stringify(d.sent)}`
}
