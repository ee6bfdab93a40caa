import { utf8Length } from '../../shared/hash.js'
import type { DenyList } from '../deny-list.js'
import { groupDigits } from './budget.js'
import type { DiscoveryContext } from './context.js'
import type { DiagnosticSite, InstructionDiagnosticCode, InstructionFile } from './discovery-results.js'
import type { Inlined } from './import-spans.js'
import { type LoadedFile, type LoadRefusal, loadFile } from './read.js'
import { withheldMark as markFor } from './withheld.js'

/** An inlined subtree kept for reuse: its text, files and spans, the bytes it cost the budget, and what it depends on. */
interface Memo {
  inlined: Inlined
  bytes: number
  /** Every file looked up in the import chain while expanding it (the cycle checks its text depends on). */
  tested: ReadonlySet<string>
}

/**
 * What one mode's discovery has spent of its expansion budget, and what it
 * read and expanded so far. Kept beside the context (one per discovery, so
 * `matrix` and a multi-harness `inspect` get one per mode).
 */
class Expansion {
  readonly counted = new Set<string>()
  bytes = 0
  /** The file the budget first had no room for; from then on everything is withheld. */
  exhausted: string | undefined
  readonly reads = new Map<string, Promise<LoadedFile | LoadRefusal>>()
  readonly memos = new Map<string, Memo>()
  readonly reported = new Set<string>()
  readonly sizes = new WeakMap<LoadedFile, number>()

  constructor(
    readonly maxFiles: number,
    readonly maxBytes: number,
  ) {}
}

const STATES = new WeakMap<DiscoveryContext, Expansion>()

function stateOf(context: DiscoveryContext): Expansion {
  let state = STATES.get(context)
  if (state === undefined) {
    state = new Expansion(context.options.maxExpandedFiles, context.options.maxExpandedBytes)
    STATES.set(context, state)
  }
  return state
}

/**
 * `loadFile`, once per path and confinement in one discovery: a file that
 * many others import is read (and its size checked, its hash computed)
 * once, however often it is named.
 */
export function loadOnce(
  context: DiscoveryContext,
  path: string,
  roots: readonly string[],
  denyList?: DenyList,
): Promise<LoadedFile | LoadRefusal> {
  const reads = stateOf(context).reads
  const key = `${path}\0${denyList === undefined ? '' : 'deny'}\0${roots.join('\0')}`
  let read = reads.get(key)
  if (read === undefined) {
    read = loadFile(context, path, roots, denyList)
    reads.set(key, read)
  }
  return read
}

/** Whether the budget is spent: everything expanded from now on is withheld. */
export function budgetSpent(context: DiscoveryContext): boolean {
  return stateOf(context).exhausted !== undefined
}

/** The UTF-8 size of a loaded file's text, measured once. */
export function sizeOf(context: DiscoveryContext, loaded: LoadedFile): number {
  const { sizes } = stateOf(context)
  let size = sizes.get(loaded)
  if (size === undefined) {
    size = utf8Length(loaded.text)
    sizes.set(loaded, size)
  }
  return size
}

/** Where a file that the budget withholds was wanted, for the diagnostic and the decision. */
export interface Wanted {
  path: string
  /** Who imported it, shown (`AGENTS.md`); absent for a file found by a walk. */
  from?: string
  site?: DiagnosticSite
}

/**
 * Charges one expansion of a file to the budget: a file not counted yet
 * takes one of `maxExpandedFiles`, and `bytes` (its text as placed, or an
 * inlined subtree reused) come off `maxExpandedBytes`. `false` when it does
 * not fit, or the budget was already spent: the caller withholds the text.
 * The first file that does not fit is named in one `expansion-budget`
 * diagnostic; everything after it is withheld too, so the outcome never
 * depends on which smaller file might still have fitted.
 */
export function admit(context: DiscoveryContext, wanted: Wanted, realPath: string, bytes: number): boolean {
  const state = stateOf(context)
  if (state.exhausted === undefined) {
    const fresh = !state.counted.has(realPath)
    if ((!fresh || state.counted.size < state.maxFiles) && state.bytes + bytes <= state.maxBytes) {
      if (fresh) state.counted.add(realPath)
      state.bytes += bytes
      return true
    }
    state.exhausted = wanted.path
    const shown = context.display(wanted.path)
    const by = wanted.from === undefined ? '' : ` (imported by ${wanted.from})`
    const why =
      fresh && state.counted.size >= state.maxFiles
        ? 'its files are used up'
        : `it would bring the expanded text to ${groupDigits(state.bytes + bytes)} bytes`
    context.report(
      'expansion-budget',
      `${shown}${by} is past the expansion budget of this mode (${budgetWords(state)} of expanded text; ${why}); it and every file after it were withheld, a mark standing in their place. Import less, or raise --max-expanded-files / --max-expanded-bytes (maxExpandedFiles, maxExpandedBytes).`,
      wanted.path,
      'warning',
      wanted.site,
    )
  }
  withhold(context, wanted)
  return false
}

function budgetWords(state: Expansion): string {
  return `at most ${groupDigits(state.maxFiles)} ${state.maxFiles === 1 ? 'file' : 'files'} and ${groupDigits(state.maxBytes)} bytes`
}

/** Records that `wanted` was withheld, unless it reached the prompt elsewhere (a file inlined in one place may be withheld in another). */
function withhold(context: DiscoveryContext, wanted: Wanted): void {
  const previous = context.decisions.get(wanted.path)
  if (previous !== undefined && previous.status !== 'skipped') return
  const by = wanted.from === undefined ? '' : `imported by ${wanted.from}, but `
  context.skip(
    wanted.path,
    'over-budget',
    `${by}past the expansion budget (${budgetWords(stateOf(context))} per mode), so it was withheld`,
  )
}

/** Bytes charged so far, to measure what one subtree cost. */
export function spentBytes(context: DiscoveryContext): number {
  return stateOf(context).bytes
}

/**
 * The mark that stands where the budget withheld a file's text, saying what
 * the harness itself would have sent there.
 */
export function withheldMark(context: DiscoveryContext, path: string): string {
  return markFor(context.mode, `${context.display(path)}, past the expansion budget`)
}

/** Why a withheld entry's text is missing, in the words of a per-file limit (`explain`). */
export function withheldRule(context: DiscoveryContext): string {
  return `withheld whole: past the expansion budget of ${budgetWords(stateOf(context))} per mode`
}

/**
 * `context.report`, but once per identical finding: a file reached along
 * many import paths would otherwise repeat the same sentence for each.
 */
export function reportOnce(
  context: DiscoveryContext,
  code: InstructionDiagnosticCode,
  message: string,
  path?: string,
  severity: 'warning' | 'info' = 'warning',
  site?: DiagnosticSite,
): void {
  const { reported } = stateOf(context)
  const key = `${code}\0${path ?? ''}\0${site === undefined ? '' : `${site.path}:${site.line}:${site.column}`}\0${message}`
  if (reported.has(key)) return
  reported.add(key)
  context.report(code, message, path, severity, site)
}

/**
 * An inlined subtree expanded before under `key` (the file, its depth and
 * its confinement), charged to the budget again: `undefined` when none is
 * kept, or when it cannot stand here because a file it looked up in its
 * import chain (`tested`) is among this place's `ancestors` (its text would
 * then stop where it went on before). What it looked up joins `tested`.
 */
export function reuse(
  context: DiscoveryContext,
  key: string,
  wanted: Wanted,
  realPath: string,
  ancestors: Iterable<string>,
  tested: Set<string>,
): Inlined | 'withheld' | undefined {
  const memo = stateOf(context).memos.get(key)
  if (memo === undefined || meets(memo.tested, ancestors)) return undefined
  for (const path of memo.tested) tested.add(path)
  return admit(context, wanted, realPath, memo.bytes) ? copyInlined(memo.inlined) : 'withheld'
}

/**
 * Keeps an inlined subtree for reuse under `key`, unless it depended on
 * where it was reached from (a file it looked up in its chain is one of
 * `ancestors`) or the budget ran out while it was expanded (its text may
 * then be partly withheld). `bytes` is what it cost.
 */
export function keep(
  context: DiscoveryContext,
  key: string,
  expanded: { inlined: Inlined; tested: ReadonlySet<string> },
  bytes: number,
  ancestors: Iterable<string>,
): void {
  const state = stateOf(context)
  if (state.exhausted !== undefined || meets(expanded.tested, ancestors)) return
  state.memos.set(key, { inlined: expanded.inlined, bytes, tested: expanded.tested })
}

function meets(tested: ReadonlySet<string>, ancestors: Iterable<string>): boolean {
  for (const path of ancestors) if (tested.has(path)) return true
  return false
}

/** A copy of an inlined subtree with its own file objects (each place a file is inlined gets its own fate after a cut). */
function copyInlined(inlined: Inlined): Inlined {
  const copies = new Map<InstructionFile, InstructionFile>()
  const copy = (file: InstructionFile): InstructionFile => {
    const made: InstructionFile = { ...file }
    if (file.imports !== undefined) made.imports = file.imports.map(copy)
    copies.set(file, made)
    return made
  }
  const imports = inlined.imports.map(copy)
  return {
    text: inlined.text,
    imports,
    spans: inlined.spans.map((span) => ({ ...span, file: copies.get(span.file) ?? span.file })),
    ...(inlined.map && { map: inlined.map }),
  }
}
