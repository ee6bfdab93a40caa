import { dirname } from 'node:path'
import { utf8Length } from '../../shared/hash.js'
import { LineCounter } from '../../shared/line-counter.js'
import { fromFile, mapPiece, sliceMapped } from '../../shared/source-map.js'
import { type BudgetCut, groupDigits, nearestFirst, omissionNotice, rootFirstSilent } from './budget.js'
import type { DiscoveryContext } from './context.js'
import { createContext } from './create-context.js'
import type { DiscoverInstructionsOptions } from './discovery-options.js'
import type {
  DiagnosticSite,
  InstructionDiscovery,
  InstructionFile,
  LateBoundFile,
  PreloadClass,
  Withheld,
} from './discovery-results.js'
import { ImportOutcomes } from './import-outcomes.js'
import { importFates, markCutImports } from './import-spans.js'
import { harnessView, type ViewEntry, type ViewLate } from './modes/harness-views.js'
import { MODES } from './modes/index.js'
import { resolveOnDemand } from './on-demand.js'
import { capWords, type ModePlan, type PlannedEntry } from './plan.js'
import { type Block, renderBlocks } from './render.js'
import { synopsis } from './synopsis.js'
import { withheldMark } from './withheld.js'

/**
 * Finds the instruction files (AGENTS.md and friends) that apply in `cwd`
 * and builds the text that enters the prompt (SPEC §6). In `sysprompt` mode
 * (the default) it walks from the project root down to `cwd` with a visible
 * nearest-first byte budget; in a harness mode (`codex`, `claude`, `gemini`,
 * `pi`, `opencode`) it loads the same files in the same order as that
 * harness, so a user can see a repository as that harness would. Problems a
 * user can fix (a link leaving the project, an import cycle, a cut) come
 * back as `diagnostics`; nothing is read outside the project root or the
 * global file's directory.
 */
export async function discoverInstructions(
  options: DiscoverInstructionsOptions,
): Promise<InstructionDiscovery> {
  return (await runDiscovery(options)).result
}

/** Discovery plus the context it filled (decisions per file), for `explainInstructions`. */
export async function runDiscovery(
  options: DiscoverInstructionsOptions,
): Promise<{ context: DiscoveryContext; result: InstructionDiscovery }> {
  const context = await createContext(options)
  const plan = await MODES[context.mode].plan(context)
  return { context, result: finish(context, plan) }
}

/** Applies the preload request and the cap, records the final decisions and renders the text. */
function finish(context: DiscoveryContext, plan: ModePlan): InstructionDiscovery {
  const preload = context.options.preload
  const bodies = plan.entries.map((entry) =>
    preload === 'synopsis' ? synopsis(entry.text, context.display(entry.path)) : entry.text,
  )
  const cuts = preload === 'none' ? bodies.map((kept) => ({ kept, omitted: 0 })) : applyCap(plan, bodies)
  const files: InstructionFile[] = []
  const blocks: Block[] = []
  const viewed: (ViewEntry & { order: number })[] = []
  // Each entry's place in load order; an import entry (not loaded by a walk) follows its importer.
  let order = 0
  let cutSomething = false
  const dropped: string[] = []
  const imports = new ImportOutcomes()
  cuts.forEach((cut, index) => {
    const entry = plan.entries[index]!
    order = context.loadOrder.get(entry.path) ?? order
    if (cut === null) {
      // Only Codex's root-first cap leaves a file out; a nearest-first budget cuts it to nothing instead.
      dropped.push(entry.path)
      context.skip(
        entry.path,
        'over-budget',
        `the ${groupDigits(plan.cap.maxBytes)}-byte cap was spent on the files before it (root first), so it was left out`,
      )
      imports.add(entry, importFates(entry.spans, 0))
      return
    }
    const truncated = entry.file.truncated || cut.omitted > 0
    if (truncated) cutSomething = true
    const activation = context.activations.get(entry.path)
    if (cut.omitted > 0) {
      // A cut of the inlined text itself is measured in its characters; a cut synopsis loses an unknown part of each import.
      const fates = importFates(entry.spans, bodies[index] === entry.text ? cut.kept.length : undefined)
      imports.add(entry, fates)
      files.push({ ...markCutImports(entry.file, fates), truncated, ...(activation && { activation }) })
    } else {
      // Kept whole, so are its imports, whatever the cut of another file that inlines them too did.
      imports.add(entry, importFates(entry.spans, entry.text.length))
      files.push({ ...entry.file, truncated, ...(activation && { activation }) })
    }
    const made = block(context, plan, entry, cut)
    blocks.push(made)
    viewed.push({ path: entry.path, kind: entry.kind, text: made.body, map: made.map ?? [], order })
    record(context, plan, entry, cut, files.length)
  })
  const gone = imports.record(context, plan, new Set(files.map((file) => file.path)))
  if (dropped.length > 0 || gone.length > 0) {
    const left = [...dropped, ...gone].map((p) => context.display(p))
    const verb = left.length === 1 ? 'never reaches' : 'never reach'
    context.report(
      'over-budget',
      `${left.join(', ')} ${verb} the model: ${capWords(plan.cap, left.length).overBudget}`,
    )
  }
  const preloadClass: PreloadClass =
    preload === 'none'
      ? 'none'
      : preload === 'synopsis'
        ? 'synopsis'
        : cutSomething || dropped.length > 0
          ? 'truncated'
          : 'full'
  const { onDemand, lateBound } = resolveOnDemand(context, context.onDemand)
  const rendered = preload === 'none' ? { text: '', spans: [], map: [] } : renderBlocks(blocks)
  const text = rendered.text
  return {
    files,
    text,
    spans: rendered.spans,
    preload: preloadClass,
    diagnostics: context.diagnostics,
    onDemand,
    lateBound,
    onRequest: context.onRequest,
    harness: harnessView(
      context,
      preload === 'none' ? [] : withWithheld(context, viewed),
      withWithheldLate(context, lateBound),
      rendered,
    ),
    profile: context.profile,
    withheld: [...context.withheld.values()].sort((a, b) => a.order - b.order).map((w) => w.entry),
  }
}

/** The viewed entries with each withheld start file's mark at its place in load order. */
function withWithheld(
  context: DiscoveryContext,
  viewed: readonly (ViewEntry & { order: number })[],
): ViewEntry[] {
  const held = [...context.withheld.values()]
    .filter((w) => w.entry.when === 'start')
    .sort((a, b) => a.order - b.order)
  const out: ViewEntry[] = []
  let next = 0
  const mark = (w: (typeof held)[number]): ViewEntry => ({
    ...markOf(context, w.entry),
    map: [],
    kind: w.global ? 'global' : 'project',
  })
  for (const { order, ...entry } of viewed) {
    while (next < held.length && held[next]!.order < order) out.push(mark(held[next++]!))
    out.push(entry)
  }
  while (next < held.length) out.push(mark(held[next++]!))
  return out
}

/** The late-bound files, then the withheld on-demand files that the working paths would load, as marks. */
function withWithheldLate(context: DiscoveryContext, late: readonly LateBoundFile[]): ViewLate[] {
  const held = [...context.withheld.values()]
    .filter((w) => w.entry.when === 'on-demand' && (w.entry.loadedFor?.length ?? 0) > 0)
    .sort((a, b) => a.order - b.order)
  const read = new Map(context.onDemand.map((c) => [c.loaded.path, c.loaded.text]))
  const mapped = late.map((file) => {
    const source = read.get(file.path)
    return source === undefined ? file : { ...file, map: mapPiece(fromFile(file.path, source), file.text) }
  })
  return [...mapped, ...held.map((w) => markOf(context, w.entry))]
}

function markOf(context: DiscoveryContext, entry: Withheld): ViewLate {
  return { path: entry.path, text: withheldMark(context.mode, entry.reason), withheld: entry.reason, map: [] }
}

function applyCap(plan: ModePlan, bodies: readonly string[]): (BudgetCut | null)[] {
  const cap = plan.cap
  if (cap.kind === 'nearest-first') {
    return nearestFirst(
      bodies.map((text, i) => ({ text, distance: plan.entries[i]!.distance })),
      cap.maxBytes,
    )
  }
  // Root first, silent (Codex): the cap is spent on project files only; the global file is not counted.
  const cuts: (BudgetCut | null)[] = bodies.map((kept) => ({ kept, omitted: 0 }))
  const project = plan.entries.flatMap((entry, i) => (entry.kind === 'global' ? [] : [i]))
  const projectCuts = rootFirstSilent(
    project.map((i) => bodies[i]!),
    cap.maxBytes,
  )
  project.forEach((i, k) => {
    cuts[i] = projectCuts[k] ?? null
  })
  return cuts
}

function block(context: DiscoveryContext, plan: ModePlan, entry: PlannedEntry, cut: BudgetCut): Block {
  const shown = context.display(entry.path)
  let body = cut.kept
  // A nearest-first cut keeps whole lines (or nothing), so the notice starts a line of its own.
  if (cut.omitted > 0 && plan.cap.kind === 'nearest-first')
    body = `${body}${omissionNotice(cut.omitted, shown)}\n`
  // Clamped to the kept text: past it the body holds the omission notice, not the import.
  const keep = (offset: number): number => Math.min(offset, cut.kept.length)
  return {
    shown,
    body,
    path: entry.path,
    note: entry.note,
    imports: bodyIsText(entry, cut)
      ? entry.spans.map((span) => ({ path: span.file.path, start: keep(span.start), end: keep(span.end) }))
      : undefined,
    // Where the kept text came from; a synopsis is sysprompt's own words.
    map: bodyIsText(entry, cut)
      ? sliceMapped({ text: entry.text, map: [...entry.map] }, 0, cut.kept.length).map
      : [],
  }
}

/** Whether the block's body is the entry's (inlined) text or a prefix of it, so import spans still point into it. */
function bodyIsText(entry: PlannedEntry, cut: BudgetCut): boolean {
  return entry.text.startsWith(cut.kept)
}

/** Where in the file the model stops reading: the line and column right after the kept text. */
function cutSite(entry: PlannedEntry, cut: BudgetCut): DiagnosticSite | undefined {
  // Only when the kept text is the file's own text (not a synopsis); an imported
  // part has no place in the top file, so the cut is reported in its text as inlined.
  if (!bodyIsText(entry, cut)) return undefined
  return { path: entry.path, ...new LineCounter(entry.text).at(cut.kept.length) }
}

function record(
  context: DiscoveryContext,
  plan: ModePlan,
  entry: PlannedEntry,
  cut: BudgetCut,
  position: number,
): void {
  const shown = context.display(entry.path)
  if (entry.limit !== undefined && cut.omitted === 0) {
    context.decide(entry.path, {
      status: 'truncated',
      code: 'truncated',
      reason: `${groupDigits(entry.limit.omitted)} of its characters were cut (${entry.limit.rule})`,
    })
    return
  }
  if (cut.omitted > 0) {
    const kept = cut.kept.length === 0 ? 'none' : `the first ${groupDigits(utf8Length(cut.kept))}`
    const silent = plan.cap.kind === 'root-first-silent'
    const { rule } = capWords(plan.cap)
    context.decide(entry.path, {
      status: 'truncated',
      code: 'truncated',
      reason: `${kept} of its bytes were kept and ${groupDigits(cut.omitted)} cut by the ${groupDigits(plan.cap.maxBytes)}-byte cap (${rule}${context.capSource === undefined ? '' : `; set by ${context.capSource}`})`,
    })
    context.report(
      silent ? 'silently-truncated' : 'truncated',
      silent
        ? `Codex would cut ${shown} silently: its last ${groupDigits(cut.omitted)} bytes never reach the model. Raise project_doc_max_bytes or shorten the files nearer the root.`
        : `${groupDigits(cut.omitted)} bytes of ${shown} were omitted by the ${groupDigits(plan.cap.maxBytes)}-byte budget (a notice marks the cut). Raise maxBytes or shorten the files nearer the working directory.`,
      entry.path,
      'warning',
      cutSite(entry, cut),
    )
    return
  }
  // Every import entry notes who imported or mentioned it.
  const where =
    entry.kind === 'global'
      ? 'as global instructions'
      : entry.kind === 'import'
        ? `as its own block (${entry.note})`
        : `from ${context.display(dirname(entry.path))}`
  context.decide(entry.path, {
    status: 'included',
    code: 'included',
    reason: `loaded ${where}, file ${position} in load order${entry.setBy === undefined ? '' : ` (decided by ${entry.setBy})`}`,
  })
}
