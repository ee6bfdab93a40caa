import type { Disposer, PromptRegistrar } from '../registry/types.js'
import type { Fragment } from '../shared/fragment.js'
import { PresetError } from './errors.js'
import { modelMatches } from './model-match.js'
import { headed, type PresetSection, registerPresetSections } from './sections.js'
import { type PresetTool, renderToolReference } from './tool-reference.js'
import { PresetWords } from './words.js'

/** Where the layered preset's answers are shown; the style section adapts to it. */
export type Surface = 'terminal' | 'app' | 'chat'

const SURFACES: readonly Surface[] = ['terminal', 'app', 'chat']

/** Options of {@link layeredPreset}. */
export interface LayeredPresetOptions {
  /** The tools to describe in the tool reference; none by default. */
  tools?: PresetTool[]
  /**
   * The model id; selects the tuning fragments whose `models:` globs match
   * it, and decides whether a given fragment with `models:` is used at all
   * (without a model, none is).
   */
  model?: string
  /** Where answers are shown; defaults to `terminal`. */
  surface?: Surface
  /** Replaces identity … style with its own text; receives the rendered tool reference. */
  corePrompt?: (ctx: { toolReference: string }) => string
  /** Per-model notes appended last, instead of the built-in tuning fragments. */
  tuning?: string
  /**
   * The project's context files (e.g. `discoverInstructions(...).text`),
   * inserted literally after the style section; kept with `corePrompt`.
   */
  contextFiles?: string
  /** The skills the agent may use (their names, what each is for, where it lives); after the context files. */
  skills?: string
  /**
   * Fragments (from `loadFragments`) whose ids replace built-in preset
   * fragments; one with `models:` replaces them only when `model` matches.
   */
  fragments?: Fragment[]
}

/**
 * The layered preset's section names, in prompt order (SPEC §7). With
 * `corePrompt`, `layered:core` stands in for identity … style; context
 * files, skills and tuning stay.
 */
export const LAYERED_SECTIONS = [
  'layered:identity',
  'layered:intent-gate',
  'layered:working-task',
  'layered:verification',
  'layered:tool-reference',
  'layered:policies',
  'layered:handoff',
  'layered:style',
  'layered:context-files',
  'layered:skills',
  'layered:tuning',
] as const

/** The section that replaces identity … style when `corePrompt` is given. */
export const LAYERED_CORE_SECTION = 'layered:core'

/**
 * Orders: the identity band (-100) for who the agent is and how it works,
 * the tool-guidance band (100) for the tool reference, then policies,
 * handoff and style, then the project's context files and skills (240,
 * 250: after the CLI's instruction section at 230, before rules at 300),
 * and tuning far enough back to stay last. A deployment persona (order 0)
 * lands between the working rules and the tools.
 */
const ORDER = {
  identity: -100,
  'intent-gate': -90,
  'working-task': -80,
  verification: -70,
  'tool-reference': 100,
  policies: 200,
  handoff: 210,
  style: 220,
  'context-files': 240,
  skills: 250,
  tuning: 1000,
} as const

/** Context files and skills come with the project, so they hold for a session, not for every project. */
const STABILITY: Partial<Record<keyof typeof ORDER, 'session'>> = {
  'context-files': 'session',
  skills: 'session',
}

function tuningText(options: LayeredPresetOptions, words: PresetWords): string {
  if (options.tuning !== undefined) return options.tuning.trim()
  if (options.model === undefined) return ''
  const model = options.model
  const matching = words
    .withPrefix('layered.tuning.')
    .filter((fragment) => fragment.models !== undefined && modelMatches(fragment.models, model))
  return matching
    .map((fragment) => words.use(fragment))
    .filter((text) => text.length > 0)
    .join('\n\n')
}

/** `text` under `heading` after the preset words of `id`, or `''` (section not registered) when `text` is blank. */
function projectPart(text: string | undefined, heading: string, id: string, words: PresetWords): string {
  const body = text?.trim() ?? ''
  // The words are read only when there is text for them to introduce.
  return body.length === 0 ? '' : headed(heading, words.text(id), body)
}

function checkOptions(options: LayeredPresetOptions): void {
  if (options.surface !== undefined && !SURFACES.includes(options.surface)) {
    throw new PresetError(
      'invalid-option',
      `layeredPreset: surface ${JSON.stringify(options.surface)} is unknown; use one of ${SURFACES.join(', ')}`,
    )
  }
  for (const key of ['contextFiles', 'skills', 'tuning', 'model'] as const) {
    const value = options[key]
    if (value !== undefined && typeof value !== 'string') {
      throw new PresetError('invalid-option', `layeredPreset: ${key} must be a string, not ${typeof value}`)
    }
  }
  if (options.corePrompt !== undefined && typeof options.corePrompt !== 'function') {
    throw new PresetError(
      'invalid-option',
      'layeredPreset: corePrompt must be a function returning the core text',
    )
  }
}

/**
 * Registers the layered system prompt (SPEC §7, seed 002): identity → intent
 * gate → working the task → verification → tool reference → policies →
 * handoff → style → context files → skills → per-model tuning, as the
 * sections of {@link LAYERED_SECTIONS}: `static`, except context files and
 * skills, which are `session` (they depend on the project).
 *
 * - The tool reference lists `tools` by category (search, session, command,
 *   other: fixed order and labels), each with its snippet and guidelines,
 *   sorted by name: the same tools give the same bytes whatever order they
 *   came in.
 * - The style section adds the words for the `surface` (default `terminal`).
 * - `corePrompt` replaces identity … style with one section,
 *   `layered:core`, whose text it returns; it receives the rendered tool
 *   reference to place where it likes. Context files, skills and tuning
 *   stay.
 * - `contextFiles` and `skills` each become a headed section after style
 *   (with a line of preset words saying how to use them), inserted
 *   literally; blank or absent, the section is not registered.
 * - Tuning: the `tuning` option when given, else every built-in or given
 *   fragment with an id under `layered.tuning.` whose `models:` globs match
 *   `model` (built-in: `gpt-5*` and `claude-*`), in id order; none without
 *   a model.
 * - The prompt holds no per-turn value (no date, no working directory): it
 *   stays byte-identical across days and directories; send those through
 *   `environmentDelta`.
 *
 * Preset words are inserted literally (no template tags are read in them).
 * A fragment in `fragments` with a built-in id (`layered.policies`)
 * replaces that fragment's words; section names, orders and stabilities
 * stay the preset's. A given fragment with `models:` front matter counts
 * only when `model` matches one of its globs; otherwise (and always when no
 * model is given) the built-in words stay. Returns one disposer removing
 * everything registered.
 */
export function layeredPreset(registry: PromptRegistrar, options: LayeredPresetOptions = {}): Disposer {
  checkOptions(options)
  const model = options.model?.trim() ? options.model : undefined
  const words = new PresetWords('layeredPreset', options.fragments, model)
  const toolReference = renderToolReference(options.tools ?? [], words)
  const section = (key: keyof typeof ORDER, text: string): PresetSection => ({
    name: `layered:${key}`,
    order: ORDER[key],
    stability: STABILITY[key] ?? 'static',
    text,
  })
  let core: PresetSection[]
  if (options.corePrompt !== undefined) {
    const text = options.corePrompt({ toolReference })
    if (typeof text !== 'string') {
      throw new PresetError(
        'invalid-option',
        `layeredPreset: corePrompt returned ${text === null ? 'null' : typeof text}; return the core text as a string`,
      )
    }
    core = [{ name: LAYERED_CORE_SECTION, order: ORDER.identity, stability: 'static', text }]
  } else {
    const surface = options.surface ?? 'terminal'
    core = [
      section('identity', words.text('layered.identity')),
      section('intent-gate', headed('# Reading the request', words.text('layered.intent-gate'))),
      section('working-task', headed('# Working the task', words.text('layered.working-task'))),
      section('verification', headed('# Checking the work', words.text('layered.verification'))),
      section('tool-reference', toolReference),
      section('policies', headed('# Rules that always apply', words.text('layered.policies'))),
      section('handoff', headed('# Handing back', words.text('layered.handoff'))),
      section(
        'style',
        headed('# Style', words.text('layered.style'), words.text(`layered.style.${surface}`)),
      ),
    ]
  }
  // Not registered at all when blank: an empty `session` section would still mark the assembly as per-session.
  const project = [
    section(
      'context-files',
      projectPart(options.contextFiles, '# Project instructions', 'layered.context-files', words),
    ),
    section('skills', projectPart(options.skills, '# Skills', 'layered.skills', words)),
  ].filter((part) => part.text.length > 0)
  return registerPresetSections(
    registry,
    [...core, ...project, section('tuning', tuningText(options, words))],
    'layeredPreset',
  )
}
