import { mostVolatile } from '../compile/stability.js'
import type { Disposer, PromptRegistrar } from '../registry/types.js'
import type { Fragment } from '../shared/fragment.js'
import { type Autonomy, checkAutonomy } from './autonomy.js'
import { PresetError } from './errors.js'
import { fragmentApplies } from './model-match.js'
import { headed, type PresetSection, paragraphs, registerPresetSections } from './sections.js'
import { sortedToolHints, sortedToolNames, type ToolPromptHint, toolList } from './tool-hints.js'
import { PresetWords } from './words.js'

/** How the project context entered the prompt (SPEC §6 preload classes). */
export type ProjectPreload = 'full' | 'truncated' | 'synopsis' | 'none'

const PRELOADS: readonly ProjectPreload[] = ['full', 'truncated', 'synopsis', 'none']

/** Options of {@link sessionPreset}: everything constant for one session. */
export interface SessionPresetOptions {
  autonomy: Autonomy
  provider?: string
  model?: string
  /** In tokens; a positive whole number. */
  contextWindow?: number
  /** Model-specific guidance on thinking, stable for the model. */
  thinkingGuidance?: string
  /** `true` (default): tools are attached; `false`: the provider has no tool calls; `null`: unknown. */
  providerSupportsTools?: boolean | null
  /** The direct tools attached to the session. */
  toolNames?: string[]
  /** One sentence per tool; one per tool is kept, sorted by tool name. */
  toolPromptHints?: ToolPromptHint[]
  /** The agents reachable through `dispatch`; rendered only when a `dispatch` tool is on the surface. */
  fleetRoster?: string
  /** Notes remembered from earlier sessions. */
  memory?: string
  /** The project's instruction text (`discoverInstructions(...).text`). */
  projectContext?: string
  /** How `projectContext` was loaded; defaults to `full` when there is context. */
  projectPreload?: ProjectPreload
  /**
   * More fragments, each appended as a section of its own after the project
   * context, in the order given. One with `models:` is used only when
   * `model` matches one of its globs (never when no model is given).
   */
  extraFragments?: Fragment[]
  /**
   * Fragments (from `loadFragments`) whose ids replace built-in preset
   * fragments; one with `models:` replaces them only when `model` matches.
   */
  fragments?: Fragment[]
}

/** The session preset's section names, in prompt order; extra fragments follow as `session:extra:<id>`. */
export const SESSION_SECTIONS = [
  'session:identity',
  'session:operating-contract',
  'session:safety',
  'session:runtime',
  'session:tool-contract',
  'session:fleet',
  'session:retrieval-hints',
  'session:memory',
  'session:project-context',
] as const

/** The prefix of the sections made from `extraFragments`. */
export const SESSION_EXTRA_PREFIX = 'session:extra:'

function checkOptions(options: SessionPresetOptions): void {
  const fail = (message: string): never => {
    throw new PresetError('invalid-option', `sessionPreset: ${message}`)
  }
  checkAutonomy(options.autonomy, 'sessionPreset')
  const supports = options.providerSupportsTools
  if (supports !== undefined && supports !== null && typeof supports !== 'boolean') {
    fail(`providerSupportsTools must be true, false or null, not ${JSON.stringify(supports)}`)
  }
  const window = options.contextWindow
  if (window !== undefined && !(Number.isSafeInteger(window) && window > 0)) {
    fail(`contextWindow must be a positive whole number of tokens, not ${String(window)}`)
  }
  const preload = options.projectPreload
  if (preload !== undefined && !PRELOADS.includes(preload)) {
    fail(`projectPreload ${JSON.stringify(preload)} is unknown; use one of ${PRELOADS.join(', ')}`)
  }
  if (preload === 'none' && (options.projectContext?.trim() ?? '') !== '') {
    fail(
      'projectPreload is "none" but projectContext was given; pass the preload class the context was loaded with',
    )
  }
}

/**
 * Whether the session can reach the fleet: a `dispatch` tool among the tool
 * names or the hints, and a provider that passes tool calls (or might). The
 * roster and the tool appear together or not at all: a roster without the
 * tool to reach it is noise.
 */
function canDispatch(options: SessionPresetOptions): boolean {
  if (options.providerSupportsTools === false) return false
  const names = new Set(sortedToolNames(options.toolNames))
  return names.has('dispatch') || (options.toolPromptHints ?? []).some((h) => h.tool.trim() === 'dispatch')
}

function runtimeText(options: SessionPresetOptions): string {
  const lines: string[] = []
  const provider = options.provider?.trim() ?? ''
  const model = options.model?.trim() ?? ''
  if (provider.length > 0) lines.push(`Provider: ${provider}`)
  if (model.length > 0) lines.push(`Model: ${model}`)
  // String(), not toLocaleString(): the bytes must not depend on the machine's locale.
  if (options.contextWindow !== undefined)
    lines.push(`Context window: ${String(options.contextWindow)} tokens`)
  return headed('# Runtime', lines.join('\n'), options.thinkingGuidance)
}

function toolContractText(options: SessionPresetOptions, words: PresetWords): string {
  if (options.providerSupportsTools === false) return headed('# Tools', words.text('session.tools-none'))
  if (options.providerSupportsTools === null) return headed('# Tools', words.text('session.tools-unknown'))
  const names = sortedToolNames(options.toolNames)
  const hints = sortedToolHints(options.toolPromptHints)
  return headed(
    '# Tools',
    words.text('session.tools'),
    names.length > 0 ? `Direct tools: ${toolList(names)}.` : '',
    hints.map((h) => `- \`${h.tool}\`: ${h.hint}`).join('\n'),
  )
}

function projectText(options: SessionPresetOptions, words: PresetWords): string {
  const context = options.projectContext?.trim() ?? ''
  const preload = options.projectPreload ?? (context.length > 0 ? 'full' : undefined)
  if (preload === undefined || (preload !== 'none' && context.length === 0)) return ''
  return headed('# Project', words.text(`session.project.${preload}`), context)
}

/** The model id the `models:` globs of fragments are matched against; none when blank. */
function modelOf(options: SessionPresetOptions): string | undefined {
  const model = options.model?.trim() ?? ''
  return model.length === 0 ? undefined : model
}

function extraSections(options: SessionPresetOptions): PresetSection[] {
  const seen = new Set<string>()
  const model = modelOf(options)
  // Filtered before the duplicate check: one id may come in several variants, one per model family.
  const used = (options.extraFragments ?? []).filter((fragment) => fragmentApplies(fragment, model))
  return used.map((fragment, i) => {
    if (seen.has(fragment.id)) {
      throw new PresetError(
        'duplicate-fragment',
        `sessionPreset: extraFragments holds "${fragment.id}" twice (${fragment.source}); pass each fragment once`,
      )
    }
    seen.add(fragment.id)
    return {
      name: `${SESSION_EXTRA_PREFIX}${fragment.id}`,
      order: 300 + i,
      // After the session sections: a static fragment here would still follow them in the prompt.
      stability: mostVolatile(fragment.stability, 'session'),
      text: fragment.enabled === false ? '' : fragment.body.trim(),
    }
  })
}

/**
 * Registers the system prompt of one agent session (SPEC §7, seed 003):
 * identity, operating contract and safety (`static`), then runtime, tool
 * contract, fleet, retrieval hints, memory and project context (`session`),
 * then `extraFragments`, as the sections of {@link SESSION_SECTIONS}.
 *
 * - Safety: `Autonomy: <level>.` with that level's one line (`read-only`,
 *   `suggest`, `auto-edit`, `full-auto`), then the safety fragment.
 * - Runtime: provider, model, context window, thinking guidance.
 * - Tool contract: the sorted, deduplicated `Direct tools:` line and one
 *   hint per tool, sorted by tool name; other words entirely when the
 *   provider has no tool calls (`providerSupportsTools: false`) or when that
 *   is unknown (`null`).
 * - Fleet: `fleetRoster` only when a `dispatch` tool is on the surface (in
 *   `toolNames` or the hints) and tools are not known to be unsupported.
 * - Project context: says how it was loaded (`projectPreload`).
 *
 * The prompt is compiled once per session and served byte-identical from
 * then on: use `createSessionPrompts`, and recompile only on the logged
 * events of SPEC §5 (`SESSION_REASONS`: model change, autonomy change,
 * fragment reload, session switch, template change, compaction), calling
 * this preset again with the new inputs. Per-turn facts (date, working
 * directory) never enter it; send them with `environmentDelta`.
 *
 * Preset words and caller texts are inserted literally (no template tags
 * are read in them). A fragment in `fragments` with a built-in id
 * (`session.safety`, `session.autonomy.suggest`) replaces those words.
 * Fragments with `models:` front matter, in `fragments` or
 * `extraFragments`, are used only when `model` matches one of their globs;
 * without a `model` they are left out. Returns one disposer removing
 * everything registered.
 */
export function sessionPreset(registry: PromptRegistrar, options: SessionPresetOptions): Disposer {
  checkOptions(options)
  const words = new PresetWords('sessionPreset', options.fragments, modelOf(options))
  const fleet = canDispatch(options) ? (options.fleetRoster?.trim() ?? '') : ''
  const memory = options.memory?.trim() ?? ''
  const sections: PresetSection[] = [
    { name: 'session:identity', order: -100, stability: 'static', text: words.text('session.identity') },
    {
      name: 'session:operating-contract',
      order: -90,
      stability: 'static',
      text: headed('# Operating contract', words.text('session.operating-contract')),
    },
    {
      name: 'session:safety',
      order: -80,
      stability: 'static',
      text: headed(
        '# Safety',
        `Autonomy: ${options.autonomy}. ${words.text(`session.autonomy.${options.autonomy}`)}`,
        words.text('session.safety'),
      ),
    },
    { name: 'session:runtime', order: 10, stability: 'session', text: runtimeText(options) },
    {
      name: 'session:tool-contract',
      order: 100,
      stability: 'session',
      text: toolContractText(options, words),
    },
    {
      name: 'session:fleet',
      order: 110,
      stability: 'session',
      text: fleet.length === 0 ? '' : headed('# Fleet', fleet, words.text('session.fleet')),
    },
    {
      name: 'session:retrieval-hints',
      order: 120,
      stability: 'session',
      text: headed(
        '# Finding things out',
        words.text(options.providerSupportsTools === false ? 'session.retrieval-none' : 'session.retrieval'),
      ),
    },
    {
      name: 'session:memory',
      order: 200,
      stability: 'session',
      text: memory.length === 0 ? '' : headed('# Memory', paragraphs(words.text('session.memory'), memory)),
    },
    { name: 'session:project-context', order: 210, stability: 'session', text: projectText(options, words) },
    ...extraSections(options),
  ]
  return registerPresetSections(registry, sections, 'sessionPreset')
}
