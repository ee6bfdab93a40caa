import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compile } from '../compile/compile.js'
import type { CompiledPrompt } from '../compile/types.js'
import { createPromptRegistry } from '../registry/index.js'
import { parseFragment } from '../shared/fragment.js'
import { AUTONOMY_LEVELS } from './autonomy.js'
import { PresetError } from './errors.js'
import { FLEET_ROSTER, TOOL_HINTS, TOOL_NAMES } from './scenarios.test-helper.js'
import { SESSION_SECTIONS, type SessionPresetOptions, sessionPreset } from './session.js'

async function build(options: SessionPresetOptions): Promise<CompiledPrompt> {
  const registry = createPromptRegistry()
  sessionPreset(registry, options)
  return compile(await registry.assemble(), { tokenizer: 'estimate', volatile: 'error' })
}

function section(compiled: CompiledPrompt, name: string): string {
  const span = compiled.sections.find((s) => s.name === name)
  return span === undefined ? '' : compiled.text.slice(span.start, span.end)
}

function fragment(id: string, body: string, extra = '') {
  return parseFragment(`---\nid: ${id}\n${extra}---\n${body}\n`, { file: `.sysprompt/${id}.md` }).fragment!
}

function codeOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(PresetError)
    return (error as PresetError).code
  }
  return 'no error'
}

const full: SessionPresetOptions = {
  autonomy: 'auto-edit',
  provider: 'openai',
  model: 'gpt-5.1',
  contextWindow: 400000,
  thinkingGuidance: 'Think briefly.',
  toolNames: [...TOOL_NAMES, 'dispatch'],
  toolPromptHints: TOOL_HINTS,
  fleetRoster: FLEET_ROSTER,
  memory: 'The user prefers pnpm.',
  projectContext: '## AGENTS.md\n\nUse tabs.',
  extraFragments: [fragment('team.rules', 'Write tests first.')],
}

describe('sessionPreset', () => {
  it('renders the documented sections in order, with the documented stabilities', async () => {
    const compiled = await build(full)
    expect(compiled.sections.map((s) => s.name)).toEqual([...SESSION_SECTIONS, 'session:extra:team.rules'])
    const stability = Object.fromEntries(compiled.sections.map((s) => [s.name, s.stability]))
    expect(stability).toEqual({
      'session:identity': 'static',
      'session:operating-contract': 'static',
      'session:safety': 'static',
      'session:runtime': 'session',
      'session:tool-contract': 'session',
      'session:fleet': 'session',
      'session:retrieval-hints': 'session',
      'session:memory': 'session',
      'session:project-context': 'session',
      'session:extra:team.rules': 'session',
    })
    // The static prefix a provider can cache across sessions ends with the safety section.
    expect(compiled.stablePrefix.static.end).toBe(compiled.sections[2]!.end)
  })

  it('states the autonomy level with its own line for each level', async () => {
    const lines = new Set<string>()
    for (const autonomy of AUTONOMY_LEVELS) {
      const safety = section(await build({ autonomy }), 'session:safety')
      expect(safety).toMatch(new RegExp(`^# Safety\\n\\nAutonomy: ${autonomy}\\. \\S`))
      expect(safety).toContain('Destructive version-control operations')
      lines.add(safety.split('\n')[2]!)
    }
    expect(lines.size).toBe(AUTONOMY_LEVELS.length)
  })

  it('lists the runtime facts without locale formatting', async () => {
    expect(section(await build(full), 'session:runtime')).toBe(
      '# Runtime\n\nProvider: openai\nModel: gpt-5.1\nContext window: 400000 tokens\n\nThink briefly.',
    )
    expect(section(await build({ autonomy: 'suggest' }), 'session:runtime')).toBe('')
  })

  it('sorts and deduplicates the direct-tool line and keeps one hint per tool, sorted by tool', async () => {
    const contract = section(
      await build({
        autonomy: 'suggest',
        toolNames: ['read', ' bash', 'read', '', 'edit'],
        toolPromptHints: [
          { tool: 'read', hint: 'B read hint.' },
          { tool: 'bash', hint: 'Bash hint.' },
          { tool: 'read', hint: 'A read hint.' },
          { tool: 'edit', hint: '  ' },
        ],
      }),
      'session:tool-contract',
    )
    expect(contract).toContain('Direct tools: `bash`, `edit`, `read`.')
    expect(contract.endsWith('- `bash`: Bash hint.\n- `read`: A read hint.')).toBe(true)
  })

  it('gives the same bytes whatever order the tools and hints come in', async () => {
    const reference = (await build(full)).text
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(full.toolNames!, { minLength: full.toolNames!.length }),
        fc.shuffledSubarray(full.toolPromptHints!, { minLength: full.toolPromptHints!.length }),
        async (toolNames, toolPromptHints) => {
          expect((await build({ ...full, toolNames, toolPromptHints })).text).toBe(reference)
        },
      ),
      { numRuns: 25 },
    )
  })

  it('has distinct tool contracts for supported, unsupported and unknown tools', async () => {
    const yes = section(await build({ ...full, providerSupportsTools: true }), 'session:tool-contract')
    const byDefault = section(await build(full), 'session:tool-contract')
    const no = section(await build({ ...full, providerSupportsTools: false }), 'session:tool-contract')
    const unknown = section(await build({ ...full, providerSupportsTools: null }), 'session:tool-contract')
    expect(byDefault).toBe(yes)
    expect(new Set([yes, no, unknown]).size).toBe(3)
    expect(no).toContain('without tool calls')
    expect(no).not.toContain('`read`')
    expect(unknown).toContain('is not known')
    expect(unknown).not.toContain('Direct tools')
    const retrieval = section(
      await build({ ...full, providerSupportsTools: false }),
      'session:retrieval-hints',
    )
    expect(retrieval).toContain('cannot read the workspace')
  })

  it('renders the fleet roster only when a dispatch tool is on the surface', async () => {
    const base = { autonomy: 'auto-edit', fleetRoster: FLEET_ROSTER } as const
    expect(section(await build({ ...base, toolNames: ['read'] }), 'session:fleet')).toBe('')
    const byName = section(await build({ ...base, toolNames: ['dispatch'] }), 'session:fleet')
    expect(byName).toContain(FLEET_ROSTER)
    expect(byName).toContain('`dispatch`')
    const byHint = section(
      await build({ ...base, toolPromptHints: [{ tool: 'dispatch', hint: 'Delegate.' }] }),
      'session:fleet',
    )
    expect(byHint).toBe(byName)
    expect(
      section(
        await build({ ...base, toolNames: ['dispatch'], providerSupportsTools: false }),
        'session:fleet',
      ),
    ).toBe('')
    expect(section(await build({ autonomy: 'auto-edit', toolNames: ['dispatch'] }), 'session:fleet')).toBe('')
  })

  it('states how the project context was preloaded', async () => {
    const project = async (extra: Partial<SessionPresetOptions>) =>
      section(
        await build({ autonomy: 'suggest', projectContext: 'CTX', ...extra }),
        'session:project-context',
      )
    const texts = {
      default: await project({}),
      full: await project({ projectPreload: 'full' }),
      truncated: await project({ projectPreload: 'truncated' }),
      synopsis: await project({ projectPreload: 'synopsis' }),
      none: await project({ projectContext: '', projectPreload: 'none' }),
    }
    expect(texts.default).toBe(texts.full)
    expect(texts.full).toMatch(/^# Project\n\n.*in full.*\n\nCTX$/)
    expect(texts.truncated).toContain('shortened to fit')
    expect(texts.synopsis).toContain('synopsis')
    expect(texts.none).toContain('were not loaded')
    expect(texts.none).not.toContain('CTX')
    expect(await project({ projectContext: undefined })).toBe('')
  })

  it('renders memory under its words, and extra fragments as sections of their own', async () => {
    const compiled = await build(full)
    expect(section(compiled, 'session:memory')).toMatch(/^# Memory\n\n.+\n\nThe user prefers pnpm\.$/)
    expect(section(compiled, 'session:extra:team.rules')).toBe('Write tests first.')
    expect(section(await build({ autonomy: 'suggest' }), 'session:memory')).toBe('')
  })

  it('inserts caller texts literally, template tags included', async () => {
    const tricky = '{{model}} [if file:x]{{#if a}} {{'
    const compiled = await build({
      autonomy: 'suggest',
      memory: tricky,
      projectContext: tricky,
      fleetRoster: tricky,
      toolNames: ['dispatch'],
      thinkingGuidance: tricky,
      toolPromptHints: [{ tool: 'dispatch', hint: tricky }],
    })
    expect(compiled.text.split(tricky).length - 1).toBe(5)
  })

  it('replaces the words of a built-in fragment given with the same id', async () => {
    const compiled = await build({
      autonomy: 'suggest',
      fragments: [
        fragment('session.autonomy.suggest', 'Ask me first.'),
        fragment('session.identity', 'You are Ada.'),
      ],
    })
    expect(section(compiled, 'session:identity')).toBe('You are Ada.')
    expect(section(compiled, 'session:safety')).toMatch(/^# Safety\n\nAutonomy: suggest\. Ask me first\.\n\n/)
    const disabled = await build({
      autonomy: 'suggest',
      fragments: [fragment('session.identity', 'x', 'enabled: false\n')],
    })
    expect(disabled.sections.map((s) => s.name)).not.toContain('session:identity')
  })

  it('uses fragments with models: only for a matching model, never without a model', async () => {
    const gpt = 'models: ["gpt-5*"]\n'
    const options = (model?: string): SessionPresetOptions => ({
      autonomy: 'suggest',
      ...(model === undefined ? {} : { model }),
      fragments: [fragment('session.identity', 'You are the GPT agent.', gpt)],
      extraFragments: [
        fragment('team.rules', 'Write tests first.'),
        fragment('team.gpt', 'Keep answers short.', gpt),
        fragment('team.claude', 'Think aloud.', 'models: ["claude-*"]\n'),
      ],
    })
    const builtinIdentity = section(await build({ autonomy: 'suggest' }), 'session:identity')
    const extras = (compiled: CompiledPrompt) =>
      compiled.sections.map((s) => s.name).filter((n) => n.startsWith('session:extra:'))
    const gptPrompt = await build(options('gpt-5.1'))
    expect(section(gptPrompt, 'session:identity')).toBe('You are the GPT agent.')
    expect(extras(gptPrompt)).toEqual(['session:extra:team.rules', 'session:extra:team.gpt'])
    const claudePrompt = await build(options('anthropic/claude-opus-4-6'))
    expect(section(claudePrompt, 'session:identity')).toBe(builtinIdentity)
    expect(extras(claudePrompt)).toEqual(['session:extra:team.rules', 'session:extra:team.claude'])
    for (const model of [undefined, ' ']) {
      const none = await build(options(model))
      expect(section(none, 'session:identity')).toBe(builtinIdentity)
      expect(extras(none)).toEqual(['session:extra:team.rules'])
    }
    // One id in per-family variants is no duplicate: only the matching one is used.
    const variants = await build({
      autonomy: 'suggest',
      model: 'claude-sonnet-4-5',
      extraFragments: [
        fragment('team.style', 'A', gpt),
        fragment('team.style', 'B', 'models: ["claude-*"]\n'),
      ],
    })
    expect(section(variants, 'session:extra:team.style')).toBe('B')
  })

  it('refuses inconsistent options', () => {
    const registry = createPromptRegistry()
    const run = (options: Partial<SessionPresetOptions>) =>
      codeOf(() => sessionPreset(registry, { autonomy: 'suggest', ...options } as SessionPresetOptions))
    expect(run({ autonomy: 'yolo' as never })).toBe('invalid-option')
    expect(run({ contextWindow: 0 })).toBe('invalid-option')
    expect(run({ contextWindow: 1.5 })).toBe('invalid-option')
    expect(run({ providerSupportsTools: 'yes' as never })).toBe('invalid-option')
    expect(run({ projectPreload: 'some' as never })).toBe('invalid-option')
    expect(run({ projectPreload: 'none', projectContext: 'CTX' })).toBe('invalid-option')
    const twice = fragment('a.b', 'x')
    expect(run({ extraFragments: [twice, twice] })).toBe('duplicate-fragment')
  })

  it('keeps extra fragments whose ids map to one variable apart', async () => {
    const compiled = await build({
      autonomy: 'suggest',
      extraFragments: [fragment('a.b', 'one'), fragment('a-b', 'two')],
    })
    expect(section(compiled, 'session:extra:a.b')).toBe('one')
    expect(section(compiled, 'session:extra:a-b')).toBe('two')
  })

  it('refuses, at compile time, a dynamic extra fragment', async () => {
    const registry = createPromptRegistry()
    sessionPreset(registry, {
      autonomy: 'suggest',
      extraFragments: [fragment('clock', 'now', 'dynamic: true\n')],
    })
    const assembly = await registry.assemble()
    expect(() => compile(assembly, { volatile: 'error' })).toThrow(/session:extra:clock/)
  })

  it('carries no date and no working directory', async () => {
    for (const autonomy of AUTONOMY_LEVELS) {
      const { text } = await build({ ...full, autonomy })
      expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/)
      expect(text).not.toContain(process.cwd())
    }
  })

  it('returns one disposer that removes everything it registered', async () => {
    const registry = createPromptRegistry()
    const dispose = sessionPreset(registry, full)
    dispose()
    const assembly = await registry.assemble()
    expect(assembly.sections.filter((s) => s.name.startsWith('session:'))).toEqual([])
    expect(assembly.variables).toEqual({})
  })
})
