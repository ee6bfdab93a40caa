import { compile } from '../compile/compile.js'
import type { CompiledPrompt, Tokenizer, TokenizerName } from '../compile/types.js'
import type { Fragment } from '../shared/fragment.js'
import { hashText } from '../shared/hash.js'
import { type Autonomy, checkAutonomy } from './autonomy.js'
import { PresetError } from './errors.js'
import { assemblyOfSections, headed, type PresetSection, paragraphs } from './sections.js'
import { sortedToolHints, sortedToolNames, type ToolPromptHint, toolList } from './tool-hints.js'
import { PresetWords } from './words.js'

/** What a worker does with a call that needs approval: refuse it, fail the run, or ask an operator. */
export type PermissionRouting = 'deny' | 'fail' | 'escalate'

const ROUTINGS: readonly PermissionRouting[] = ['deny', 'fail', 'escalate']

/** The worker's persona: the recipe body that says how this worker works. Must be stable and non-empty. */
export interface WorkerPersona {
  id: string
  body: string
  /** `true` marks a persona that changes between turns, which a stable worker prompt refuses. */
  dynamic: boolean
}

/** Options of {@link compileWorkerPrompt}: the final, admitted inputs of one delegated run. */
export interface WorkerPromptOptions {
  /** The autonomy the dispatcher admitted for this worker. */
  autonomy: Autonomy
  /** Whether the target model takes tool calls; `null` when that cannot be observed. */
  providerSupportsTools: boolean | null
  /** The tools admitted for this worker. */
  toolNames: string[]
  /** Guidance per tool; only admitted tools' hints are kept, one per tool, sorted by tool name. */
  toolPromptHints: ToolPromptHint[]
  /** Whether a `context` tool is among the admitted tools (checked against `toolNames`). */
  hasCanonicalContext: boolean
  /** Whether the dispatcher bound skills to this task (they need the `context` tool). */
  hasBoundSkills: boolean
  onPermission: PermissionRouting
  persona: WorkerPersona
  /**
   * Fragments (from `loadFragments`) whose ids replace built-in preset
   * fragments. The worker prompt names no model, so a fragment with
   * `models:` front matter is never used here (the built-in words stay).
   */
  fragments?: Fragment[]
  /** Defaults to `o200k`. */
  tokenizer?: Tokenizer | TokenizerName
}

/** The worker prompt's section names, in prompt order. */
export const WORKER_SECTIONS = [
  'worker:identity',
  'worker:operating-contract',
  'worker:tool-contract',
  'worker:safety',
  'worker:persona',
] as const

const PRESET = 'compileWorkerPrompt'

function checkOptions(options: WorkerPromptOptions, names: readonly string[]): void {
  const fail = (message: string): never => {
    throw new PresetError('invalid-option', `${PRESET}: ${message}`)
  }
  checkAutonomy(options.autonomy, PRESET)
  const supports = options.providerSupportsTools
  if (supports !== null && typeof supports !== 'boolean') {
    fail(`providerSupportsTools must be true, false or null, not ${JSON.stringify(supports)}`)
  }
  if (!ROUTINGS.includes(options.onPermission)) {
    fail(`onPermission ${JSON.stringify(options.onPermission)} is unknown; use one of ${ROUTINGS.join(', ')}`)
  }
  const persona = options.persona
  if (persona.dynamic) {
    throw new PresetError(
      'dynamic-persona',
      `${PRESET}: persona "${persona.id}" is dynamic; a worker prompt is compiled once per run, so give a stable persona and send changing facts as messages`,
    )
  }
  if (persona.body.trim().length === 0) {
    throw new PresetError(
      'empty-persona',
      `${PRESET}: persona "${persona.id}" has an empty body; give the worker a persona that says how it works`,
    )
  }
  const contextAttached = supports === true && names.includes('context')
  if (options.hasCanonicalContext !== contextAttached) {
    const actual =
      supports === true
        ? `the admitted tools ${names.includes('context') ? 'include' : 'do not include'} \`context\``
        : `tools are ${supports === false ? 'unsupported' : 'unknown'} on this target, so no \`context\` tool is attached`
    throw new PresetError(
      'context-mismatch',
      `${PRESET}: hasCanonicalContext is ${options.hasCanonicalContext} but ${actual}; derive the flag from the final tool list`,
    )
  }
  if (options.hasBoundSkills && !options.hasCanonicalContext) {
    throw new PresetError(
      'skills-without-context',
      `${PRESET}: skills are bound but no \`context\` tool is attached to reach them; admit \`context\` or bind no skills`,
    )
  }
}

function operatingContract(options: WorkerPromptOptions, words: PresetWords): string {
  const contract = words.text('worker.operating-contract')
  let skills = ''
  if (options.hasBoundSkills) skills = words.text('worker.skills-bound')
  else if (options.hasCanonicalContext) skills = words.text('worker.skills-available')
  return headed('# Operating contract', contract, skills)
}

function toolContract(options: WorkerPromptOptions, names: readonly string[], words: PresetWords): string {
  if (options.providerSupportsTools === false)
    return headed('# Tools', words.text('worker.tools-unsupported'))
  if (options.providerSupportsTools === null) return headed('# Tools', words.text('worker.tools-unknown'))
  if (names.length === 0) return headed('# Tools', words.text('worker.tools-none-admitted'))
  const hints = sortedToolHints(options.toolPromptHints, new Set(names))
  return headed(
    '# Tools',
    words.text('worker.tools'),
    `Admitted tools: ${toolList(names)}.`,
    hints.map((h) => `- \`${h.tool}\`: ${h.hint}`).join('\n'),
  )
}

function safety(options: WorkerPromptOptions, words: PresetWords): string {
  const level = `Autonomy: ${options.autonomy}. ${words.text(`worker.autonomy.${options.autonomy}`)}`
  // A read-only worker never reaches an approval: every mutating call is refused outright.
  const routing =
    options.autonomy === 'read-only' ? '' : words.text(`worker.permission.${options.onPermission}`)
  return headed(
    '# Safety',
    [level, routing].filter((line) => line.length > 0).join('\n'),
    words.text('worker.safety'),
  )
}

/**
 * Compiles the stable system prompt of one delegated worker (SPEC §7, seed
 * 003): worker identity, operating contract (with the skills words when a
 * `context` tool is attached, bound or available), worker tool contract
 * (admitted tools sorted, hints of admitted tools only; other words when
 * tools are unsupported or unknown), worker safety (autonomy line and how
 * approval-required calls are routed: `deny`, `fail`, `escalate`), then the
 * persona, as the sections of {@link WORKER_SECTIONS}, all `static`.
 *
 * Synchronous: it builds the assembly itself and compiles it with
 * `volatile: 'error'`. The manifest lists the preset fragments read and the
 * persona (source `persona:<id>`). Inconsistent inputs throw a
 * {@link PresetError}: a dynamic persona (`dynamic-persona`), an empty one
 * (`empty-persona`), `hasCanonicalContext` disagreeing with whether
 * `context` is among the admitted tools of a target that supports tools
 * (`context-mismatch`), bound skills without context
 * (`skills-without-context`).
 */
export function compileWorkerPrompt(options: WorkerPromptOptions): CompiledPrompt {
  const names = sortedToolNames(options.toolNames)
  checkOptions(options, names)
  const words = new PresetWords(PRESET, options.fragments)
  const persona = options.persona
  const sections: PresetSection[] = [
    { name: 'worker:identity', order: 10, stability: 'static', text: words.text('worker.identity') },
    {
      name: 'worker:operating-contract',
      order: 20,
      stability: 'static',
      text: operatingContract(options, words),
    },
    {
      name: 'worker:tool-contract',
      order: 30,
      stability: 'static',
      text: toolContract(options, names, words),
    },
    { name: 'worker:safety', order: 40, stability: 'static', text: safety(options, words) },
    { name: 'worker:persona', order: 50, stability: 'static', text: paragraphs(persona.body) },
  ]
  const manifest = [
    ...words.manifest(),
    { id: persona.id, source: `persona:${persona.id}`, contentHash: hashText(persona.body), dynamic: false },
  ]
  return compile(assemblyOfSections(sections), {
    volatile: 'error',
    manifest,
    ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
  })
}
