import { dirname } from 'node:path'
import { utf8Length } from '../../compile/hash.js'
import { type BudgetCut, groupDigits, nearestFirst, omissionNotice, rootFirstSilent } from './budget.js'
import { createContext, type DiscoveryContext } from './context.js'
import { MODES } from './modes/index.js'
import type { ModePlan, PlannedEntry } from './plan.js'
import { type Block, renderBlocks } from './render.js'
import { synopsis } from './synopsis.js'
import type {
  DiscoverInstructionsOptions,
  InstructionDiscovery,
  InstructionFile,
  PreloadClass,
} from './types.js'

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
  let cutSomething = false
  const dropped: string[] = []
  plan.entries.forEach((entry, index) => {
    const cut = cuts[index]
    if (cut === null || cut === undefined) {
      dropped.push(entry.path)
      context.skip(
        entry.path,
        'over-budget',
        `the ${groupDigits(capBytes(plan))}-byte cap was spent on the files before it (root first), so it was left out`,
      )
      return
    }
    const truncated = entry.file.truncated || cut.omitted > 0
    if (truncated) cutSomething = true
    files.push({ ...entry.file, truncated })
    blocks.push(block(context, plan, entry, cut))
    record(context, plan, entry, cut, files.length)
  })
  if (dropped.length > 0) {
    const names = dropped.map((p) => context.display(p)).join(', ')
    context.report(
      'over-budget',
      capBytes(plan) === 0
        ? `${names} never reach the model: a project_doc_max_bytes of 0 turns Codex's project files off.`
        : `${names} never reach the model: Codex's ${groupDigits(capBytes(plan))}-byte project_doc_max_bytes was spent before them. Raise it or shorten the files nearer the root.`,
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
  return {
    files,
    text: preload === 'none' ? '' : renderBlocks(blocks),
    preload: preloadClass,
    diagnostics: context.diagnostics,
  }
}

function capBytes(plan: ModePlan): number {
  return plan.cap.kind === 'none' ? 0 : plan.cap.maxBytes
}

function applyCap(plan: ModePlan, bodies: readonly string[]): (BudgetCut | null)[] {
  const cap = plan.cap
  if (cap.kind === 'nearest-first') {
    return nearestFirst(
      bodies.map((text, i) => ({ text, distance: plan.entries[i]!.distance })),
      cap.maxBytes,
    )
  }
  const cuts: (BudgetCut | null)[] = bodies.map((kept) => ({ kept, omitted: 0 }))
  if (cap.kind === 'root-first-silent') {
    // Codex spends its cap on project files only; the global file is not counted.
    const project = plan.entries.flatMap((entry, i) => (entry.kind === 'global' ? [] : [i]))
    const projectCuts = rootFirstSilent(
      project.map((i) => bodies[i]!),
      cap.maxBytes,
    )
    project.forEach((i, k) => {
      cuts[i] = projectCuts[k] ?? null
    })
  }
  return cuts
}

function block(context: DiscoveryContext, plan: ModePlan, entry: PlannedEntry, cut: BudgetCut): Block {
  const shown = context.display(entry.path)
  let body = cut.kept
  if (cut.omitted > 0 && plan.cap.kind === 'nearest-first') {
    const notice = omissionNotice(cut.omitted, shown)
    body = body.length === 0 || body.endsWith('\n') ? `${body}${notice}\n` : `${body}\n${notice}\n`
  }
  return entry.note === undefined ? { shown, body } : { shown, note: entry.note, body }
}

function record(
  context: DiscoveryContext,
  plan: ModePlan,
  entry: PlannedEntry,
  cut: BudgetCut,
  position: number,
): void {
  const shown = context.display(entry.path)
  if (cut.omitted > 0) {
    const kept = cut.kept.length === 0 ? 'none' : `the first ${groupDigits(utf8Length(cut.kept))}`
    const silent = plan.cap.kind === 'root-first-silent'
    const rule = silent
      ? 'Codex cuts silently, root first'
      : 'nearest-first: files nearer the working directory come first'
    context.decide(entry.path, {
      status: 'truncated',
      code: 'truncated',
      reason: `${kept} of its bytes were kept and ${groupDigits(cut.omitted)} cut by the ${groupDigits(capBytes(plan))}-byte cap (${rule})`,
    })
    context.report(
      silent ? 'silently-truncated' : 'truncated',
      silent
        ? `Codex would cut ${shown} silently: its last ${groupDigits(cut.omitted)} bytes never reach the model. Raise project_doc_max_bytes or shorten the files nearer the root.`
        : `${groupDigits(cut.omitted)} bytes of ${shown} were omitted by the ${groupDigits(capBytes(plan))}-byte budget (a notice marks the cut). Raise maxBytes or shorten the files nearer the working directory.`,
      entry.path,
    )
    return
  }
  const where =
    entry.kind === 'global'
      ? 'as global instructions'
      : entry.kind === 'import'
        ? `as its own block (${entry.note ?? 'imported'})`
        : `from ${context.display(dirname(entry.path))}`
  context.decide(entry.path, {
    status: 'included',
    code: 'included',
    reason: `loaded ${where}, file ${position} in load order`,
  })
}
