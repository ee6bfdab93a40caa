import { describe, expect, it } from 'vitest'
import type { CompiledPrompt } from '../compile/types.js'
import { parseFragment } from '../shared/fragment.js'
import { AUTONOMY_LEVELS } from './autonomy.js'
import { PresetError } from './errors.js'
import { PERSONA, TOOL_HINTS, TOOL_NAMES } from './scenarios.test-helper.js'
import { compileWorkerPrompt, WORKER_SECTIONS, type WorkerPromptOptions } from './worker.js'

const base: WorkerPromptOptions = {
  autonomy: 'auto-edit',
  providerSupportsTools: true,
  toolNames: TOOL_NAMES,
  toolPromptHints: TOOL_HINTS,
  hasCanonicalContext: true,
  hasBoundSkills: false,
  onPermission: 'escalate',
  persona: PERSONA,
  tokenizer: 'estimate',
}

const worker = (extra: Partial<WorkerPromptOptions> = {}) => compileWorkerPrompt({ ...base, ...extra })

function section(compiled: CompiledPrompt, name: string): string {
  const span = compiled.sections.find((s) => s.name === name)
  return span === undefined ? '' : compiled.text.slice(span.start, span.end)
}

function failure(extra: Partial<WorkerPromptOptions>): PresetError {
  try {
    worker(extra)
  } catch (error) {
    expect(error).toBeInstanceOf(PresetError)
    return error as PresetError
  }
  throw new Error('expected a PresetError')
}

describe('compileWorkerPrompt', () => {
  it('compiles synchronously into the documented sections, all static', () => {
    const compiled = worker()
    expect(compiled).not.toBeInstanceOf(Promise)
    expect(compiled.sections.map((s) => s.name)).toEqual([...WORKER_SECTIONS])
    expect(compiled.sections.every((s) => s.stability === 'static')).toBe(true)
    expect(compiled.tokenizer).toBe('estimate')
    expect(section(compiled, 'worker:persona')).toBe(PERSONA.body)
  })

  it('lists the preset fragments read and the persona in the manifest', () => {
    const { manifest } = worker()
    expect(manifest.map((m) => m.id)).toEqual([
      'worker.identity',
      'worker.operating-contract',
      'worker.skills-available',
      'worker.tools',
      'worker.autonomy.auto-edit',
      'worker.permission.escalate',
      'worker.safety',
      PERSONA.id,
    ])
    expect(manifest.at(-1)).toMatchObject({ source: `persona:${PERSONA.id}`, dynamic: false })
    expect(manifest[0]!.source).toBe('presets/worker/identity.md')
  })

  it('admits the sorted tools and only their hints, one per tool', () => {
    const contract = section(
      worker({
        toolNames: ['read', 'context', 'read'],
        toolPromptHints: [...TOOL_HINTS, { tool: 'read', hint: 'Another read hint.' }],
      }),
      'worker:tool-contract',
    )
    expect(contract).toContain('Admitted tools: `context`, `read`.')
    expect(contract).not.toContain('`bash`')
    expect(contract).not.toContain('project script')
    expect(contract.match(/^- `read`/gm)).toHaveLength(1)
    expect(contract.indexOf('- `context`')).toBeLessThan(contract.indexOf('- `read`'))
  })

  it('has distinct tool contracts for supported, none admitted, unsupported and unknown', () => {
    const texts = [
      section(worker(), 'worker:tool-contract'),
      section(worker({ toolNames: [], hasCanonicalContext: false }), 'worker:tool-contract'),
      section(worker({ providerSupportsTools: false, hasCanonicalContext: false }), 'worker:tool-contract'),
      section(worker({ providerSupportsTools: null, hasCanonicalContext: false }), 'worker:tool-contract'),
    ]
    expect(new Set(texts).size).toBe(4)
    for (const text of texts.slice(1)) expect(text).not.toContain('Admitted tools')
  })

  it('routes approval-required calls as asked, except for read-only workers', () => {
    const routed = (['deny', 'fail', 'escalate'] as const).map((onPermission) =>
      section(worker({ onPermission }), 'worker:safety'),
    )
    expect(new Set(routed).size).toBe(3)
    expect(routed[0]).toContain('refused at once')
    expect(routed[1]).toContain('ends this run')
    expect(routed[2]).toContain("operator's decision")
    const readOnly = (['deny', 'fail', 'escalate'] as const).map((onPermission) =>
      section(worker({ autonomy: 'read-only', onPermission }), 'worker:safety'),
    )
    expect(new Set(readOnly).size).toBe(1)
    expect(readOnly[0]).toMatch(/^# Safety\n\nAutonomy: read-only\. /)
  })

  it('states each autonomy level with its own line', () => {
    const lines = AUTONOMY_LEVELS.map(
      (autonomy) => section(worker({ autonomy }), 'worker:safety').split('\n')[2],
    )
    expect(new Set(lines).size).toBe(AUTONOMY_LEVELS.length)
  })

  it('speaks of skills only with context: available, or bound to the task', () => {
    const available = section(worker(), 'worker:operating-contract')
    const bound = section(worker({ hasBoundSkills: true }), 'worker:operating-contract')
    const without = section(
      worker({ toolNames: ['read'], hasCanonicalContext: false }),
      'worker:operating-contract',
    )
    expect(available).toContain('can be listed through the `context` tool')
    expect(bound).toContain('bound skills to this task')
    expect(without).not.toMatch(/skill/i)
  })

  describe('invariants', () => {
    it('refuses a dynamic persona', () => {
      const error = failure({ persona: { ...PERSONA, dynamic: true } })
      expect(error.code).toBe('dynamic-persona')
      expect(error.message).toContain(PERSONA.id)
    })

    it('refuses an empty persona', () => {
      expect(failure({ persona: { ...PERSONA, body: ' \n\t' } }).code).toBe('empty-persona')
    })

    it('refuses a context flag that disagrees with the admitted tools', () => {
      const missing = failure({ toolNames: ['read'], hasCanonicalContext: true })
      expect(missing.code).toBe('context-mismatch')
      expect(missing.message).toMatch(/do not include `context`/)
      expect(failure({ hasCanonicalContext: false }).code).toBe('context-mismatch')
      const unsupported = failure({ providerSupportsTools: false })
      expect(unsupported.code).toBe('context-mismatch')
      expect(unsupported.message).toContain('unsupported')
      expect(failure({ providerSupportsTools: null }).code).toBe('context-mismatch')
    })

    it('refuses bound skills without context', () => {
      const error = failure({ toolNames: ['read'], hasCanonicalContext: false, hasBoundSkills: true })
      expect(error.code).toBe('skills-without-context')
      expect(error.message).toContain('admit `context`')
    })

    it('refuses unknown autonomy, routing and support values', () => {
      expect(failure({ autonomy: 'all' as never }).code).toBe('invalid-option')
      expect(failure({ onPermission: 'ask' as never }).code).toBe('invalid-option')
      expect(failure({ providerSupportsTools: undefined as never }).code).toBe('invalid-option')
    })
  })

  it('replaces the words of a built-in fragment given with the same id', () => {
    const mine = parseFragment('---\nid: worker.identity\n---\nYou are a subcontractor.\n', {
      file: '.sysprompt/worker/identity.md',
    }).fragment!
    const compiled = worker({ fragments: [mine] })
    expect(section(compiled, 'worker:identity')).toBe('You are a subcontractor.')
    expect(compiled.manifest[0]).toMatchObject({
      id: 'worker.identity',
      source: '.sysprompt/worker/identity.md',
    })
  })

  it('never uses a fragment with models:, since the worker prompt names no model', () => {
    const mine = parseFragment('---\nid: worker.identity\nmodels: ["*"]\n---\nYou are a subcontractor.\n', {
      file: '.sysprompt/worker/identity.md',
    }).fragment!
    const compiled = worker({ fragments: [mine] })
    expect(section(compiled, 'worker:identity')).toBe(section(worker(), 'worker:identity'))
    expect(compiled.manifest[0]).toMatchObject({
      id: 'worker.identity',
      source: 'presets/worker/identity.md',
    })
  })

  it('inserts the persona literally, template tags included', () => {
    const body = 'Review {{diff}} and [if git:branch]report[endif].'
    expect(section(worker({ persona: { ...PERSONA, body } }), 'worker:persona')).toBe(body)
  })

  it('carries no date and no working directory', () => {
    const { text } = worker()
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/)
    expect(text).not.toContain(process.cwd())
  })
})
