import { compile } from '../compile/compile.js'
import type { CompiledPrompt } from '../compile/types.js'
import { createPromptRegistry } from '../registry/index.js'
import { parseFragment } from '../shared/fragment.js'
import { type LayeredPresetOptions, layeredPreset } from './layered.js'
import { type SessionPresetOptions, sessionPreset } from './session.js'
import type { ToolPromptHint } from './tool-hints.js'
import type { PresetTool } from './tool-reference.js'
import { compileWorkerPrompt, type WorkerPromptOptions } from './worker.js'

/** A representative tool set, one or more per category. */
export const TOOLS: PresetTool[] = [
  {
    name: 'read',
    category: 'search',
    snippet: 'Read a file, or a range of its lines.',
    guidelines: ['Read a file before you edit it.'],
  },
  { name: 'grep', category: 'search', snippet: 'Search file contents with a regular expression.' },
  { name: 'todo', category: 'session', snippet: 'Keep a checklist of the steps of a long task.' },
  {
    name: 'bash',
    category: 'command',
    snippet: 'Run a shell command in the workspace.',
    guidelines: ['Look at files with read and grep rather than cat.', 'Quote paths that hold spaces.'],
  },
  { name: 'edit', snippet: 'Replace an exact piece of text in a file.' },
]

export const TOOL_NAMES = ['read', 'grep', 'edit', 'bash', 'context']

export const TOOL_HINTS: ToolPromptHint[] = [
  { tool: 'read', hint: 'Read only the lines you need from large files.' },
  { tool: 'bash', hint: 'Prefer a project script over a hand-written command line.' },
  { tool: 'edit', hint: 'Give enough surrounding text to make the match unique.' },
  { tool: 'context', hint: 'Ask for workspace orientation before broad searches.' },
]

export const FLEET_ROSTER = [
  '- `scout`: explores a repository and reports where things live.',
  '- `fixer`: makes a small, well-described change and runs its tests.',
].join('\n')

/** Context files as `discoverInstructions` renders them: a header comment above each file. */
export const CONTEXT_FILES = [
  '<!-- AGENTS.md -->',
  'Use two-space indentation. Run `npm test` before handing back.',
  '',
  '<!-- packages/api/AGENTS.md -->',
  'Every route validates its request body.',
].join('\n')

export const SKILLS = [
  '- `release`: cut a release and write its notes (skills/release/SKILL.md)',
  '- `migrate-db`: write and check a database migration (skills/migrate-db/SKILL.md)',
].join('\n')

export const PERSONA = {
  id: 'recipe.reviewer',
  body: 'You review a change for correctness. Read the diff and the code around it, and list each problem with its file and line.',
  dynamic: false,
}

/** One golden input: a name (the lock file's) and how to compile it. */
export interface Scenario {
  name: string
  compile: () => Promise<CompiledPrompt>
}

async function layered(options: LayeredPresetOptions): Promise<CompiledPrompt> {
  const registry = createPromptRegistry()
  layeredPreset(registry, options)
  return compile(await registry.assemble(), { volatile: 'error' })
}

async function session(options: SessionPresetOptions): Promise<CompiledPrompt> {
  const registry = createPromptRegistry()
  sessionPreset(registry, options)
  return compile(await registry.assemble(), { volatile: 'error' })
}

const worker = async (options: WorkerPromptOptions): Promise<CompiledPrompt> => compileWorkerPrompt(options)

const baseSession: SessionPresetOptions = {
  autonomy: 'auto-edit',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  contextWindow: 200000,
  thinkingGuidance: 'Think before multi-step changes; answer simple questions directly.',
  providerSupportsTools: true,
  toolNames: TOOL_NAMES,
  toolPromptHints: TOOL_HINTS,
}

const baseWorker: WorkerPromptOptions = {
  autonomy: 'auto-edit',
  providerSupportsTools: true,
  toolNames: TOOL_NAMES,
  toolPromptHints: TOOL_HINTS,
  hasCanonicalContext: true,
  hasBoundSkills: false,
  onPermission: 'escalate',
  persona: PERSONA,
}

const extra = parseFragment(
  '---\nid: team.review-rules\n---\nEvery change needs a test that fails without it.\n',
  {
    file: 'team/review-rules.md',
    relPath: 'team/review-rules.md',
  },
).fragment!

/** Every preset over representative inputs: what the golden lock files record. */
export const SCENARIOS: Scenario[] = [
  { name: 'layered-no-tools-chat', compile: () => layered({ surface: 'chat' }) },
  { name: 'layered-tools-terminal', compile: () => layered({ tools: TOOLS }) },
  { name: 'layered-tools-app', compile: () => layered({ tools: TOOLS, surface: 'app' }) },
  { name: 'layered-gpt-5', compile: () => layered({ tools: TOOLS, model: 'gpt-5.1' }) },
  { name: 'layered-claude', compile: () => layered({ tools: TOOLS, model: 'claude-sonnet-4-5' }) },
  {
    name: 'layered-core-prompt',
    compile: () =>
      layered({
        tools: TOOLS,
        corePrompt: ({ toolReference }) => `You are the example agent.\n\n${toolReference}`,
        tuning: 'Prefer British spelling.',
      }),
  },
  {
    name: 'layered-context-skills',
    compile: () => layered({ tools: TOOLS, model: 'gpt-5.1', contextFiles: CONTEXT_FILES, skills: SKILLS }),
  },
  {
    name: 'layered-core-prompt-context',
    compile: () =>
      layered({
        tools: TOOLS,
        model: 'claude-sonnet-4-5',
        corePrompt: ({ toolReference }) => `You are the example agent.\n\n${toolReference}`,
        contextFiles: CONTEXT_FILES,
        skills: SKILLS,
      }),
  },
  ...(['read-only', 'suggest', 'auto-edit', 'full-auto'] as const).map((autonomy) => ({
    name: `session-${autonomy}`,
    compile: () => session({ ...baseSession, autonomy }),
  })),
  {
    name: 'session-dispatch',
    compile: () =>
      session({
        ...baseSession,
        toolNames: [...TOOL_NAMES, 'dispatch'],
        toolPromptHints: [...TOOL_HINTS, { tool: 'dispatch', hint: 'Send broad exploration to a scout.' }],
        fleetRoster: FLEET_ROSTER,
      }),
  },
  {
    name: 'session-no-tools',
    compile: () => session({ ...baseSession, providerSupportsTools: false, fleetRoster: FLEET_ROSTER }),
  },
  { name: 'session-tools-unknown', compile: () => session({ ...baseSession, providerSupportsTools: null }) },
  {
    name: 'session-context',
    compile: () =>
      session({
        ...baseSession,
        model: 'gpt-5.1',
        provider: 'openai',
        memory: 'The user runs tests with `npm test -- --run`.',
        projectContext:
          '## AGENTS.md\n\nUse two-space indentation.\n\n[… 1 024 bytes of AGENTS.md omitted …]',
        projectPreload: 'truncated',
        extraFragments: [extra],
      }),
  },
  {
    name: 'worker-read-only-deny',
    compile: () => worker({ ...baseWorker, autonomy: 'read-only', onPermission: 'deny' }),
  },
  { name: 'worker-suggest-escalate', compile: () => worker({ ...baseWorker, autonomy: 'suggest' }) },
  { name: 'worker-auto-edit-fail', compile: () => worker({ ...baseWorker, onPermission: 'fail' }) },
  {
    name: 'worker-full-auto-deny',
    compile: () => worker({ ...baseWorker, autonomy: 'full-auto', onPermission: 'deny' }),
  },
  { name: 'worker-bound-skills', compile: () => worker({ ...baseWorker, hasBoundSkills: true }) },
  {
    name: 'worker-no-context',
    compile: () => worker({ ...baseWorker, toolNames: ['read', 'grep'], hasCanonicalContext: false }),
  },
  {
    name: 'worker-unsupported',
    compile: () => worker({ ...baseWorker, providerSupportsTools: false, hasCanonicalContext: false }),
  },
  {
    name: 'worker-unknown',
    compile: () => worker({ ...baseWorker, providerSupportsTools: null, hasCanonicalContext: false }),
  },
  {
    name: 'worker-none-admitted',
    compile: () => worker({ ...baseWorker, toolNames: [], hasCanonicalContext: false }),
  },
]
