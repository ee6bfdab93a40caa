import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compile } from '../compile/compile.js'
import { createPromptRegistry, renderPrompt } from '../registry/index.js'
import { parseFragment } from '../shared/fragment.js'
import { PresetError } from './errors.js'
import { LAYERED_SECTIONS, type LayeredPresetOptions, layeredPreset } from './layered.js'
import { TOOLS } from './scenarios.test-helper.js'
import { TOOL_CATEGORY_LABELS } from './tool-reference.js'

async function build(options: LayeredPresetOptions = {}) {
  const registry = createPromptRegistry()
  const dispose = layeredPreset(registry, options)
  const assembly = await registry.assemble()
  return { registry, dispose, assembly, text: renderPrompt(assembly) }
}

function sectionText(assembly: Awaited<ReturnType<typeof build>>['assembly'], name: string): string {
  const compiled = compile(assembly, { tokenizer: 'estimate' })
  const span = compiled.sections.find((s) => s.name === name)
  return span === undefined ? '' : compiled.text.slice(span.start, span.end)
}

const CONTEXT = '<!-- AGENTS.md -->\nRun `npm test` before you hand back.'
const SKILLS = '- `release`: cut a release (skills/release/SKILL.md)'

function override(id: string, body: string) {
  return parseFragment(`---\nid: ${id}\n---\n${body}\n`, { file: `/home/u/.config/sysprompt/${id}.md` })
    .fragment!
}

describe('layeredPreset', () => {
  it('registers exactly the documented sections, in order, static but for the project ones', async () => {
    const { assembly } = await build({ tools: TOOLS, model: 'gpt-5', contextFiles: CONTEXT, skills: SKILLS })
    const mine = assembly.sections.filter((s) => s.name.startsWith('layered:'))
    expect(mine.map((s) => s.name)).toEqual([...LAYERED_SECTIONS])
    const session = ['layered:context-files', 'layered:skills']
    for (const s of mine) expect(s.stability, s.name).toBe(session.includes(s.name) ? 'session' : 'static')
    const compiled = compile(assembly, { tokenizer: 'estimate', volatile: 'error' })
    expect(compiled.sections.map((s) => s.name)).toEqual([...LAYERED_SECTIONS])
    const style = compiled.sections.find((s) => s.name === 'layered:style')!
    expect(compiled.stablePrefix.static.end).toBe(style.end)
    expect(compiled.stablePrefix.session.end).toBe(compiled.text.length)
  })

  it('is all static, and leaves out tuning, context files and skills, when none is given', async () => {
    const { assembly } = await build({ tools: TOOLS })
    const compiled = compile(assembly, { tokenizer: 'estimate' })
    const absent = ['layered:context-files', 'layered:skills', 'layered:tuning']
    expect(compiled.sections.map((s) => s.name)).toEqual(LAYERED_SECTIONS.filter((n) => !absent.includes(n)))
    expect(compiled.stablePrefix.static.end).toBe(compiled.text.length)
    const blankAssembly = (await build({ tools: TOOLS, contextFiles: ' \n ', skills: '' })).assembly
    expect(blankAssembly.sections.map((s) => s.name)).toEqual(assembly.sections.map((s) => s.name))
    expect(Object.values(blankAssembly.stability).every((s) => s === 'static')).toBe(true)
    expect(compile(blankAssembly, { tokenizer: 'estimate' }).text).toBe(compiled.text)
  })

  it('puts context files, then skills, after style and before tuning, inserted literally', async () => {
    const context = `${CONTEXT}\n\nUse {{braces}} and [if git:branch] as written.`
    const { assembly, text } = await build({
      model: 'claude-sonnet-4-5',
      contextFiles: context,
      skills: SKILLS,
    })
    const files = sectionText(assembly, 'layered:context-files')
    const skills = sectionText(assembly, 'layered:skills')
    expect(files).toMatch(/^# Project instructions\n\nThese instruction files come with the project\./)
    expect(files.endsWith(`\n\n${context}`)).toBe(true)
    expect(skills).toMatch(/^# Skills\n\nA skill holds instructions/)
    expect(skills.endsWith(`\n\n${SKILLS}`)).toBe(true)
    const at = (part: string) => text.indexOf(part)
    expect(at('# Style')).toBeLessThan(at(files))
    expect(at(files)).toBeLessThan(at(skills))
    expect(at(skills)).toBeLessThan(at('# Notes for this model'))
  })

  it('keeps context files and skills when corePrompt replaces identity … style', async () => {
    const { assembly } = await build({
      tools: TOOLS,
      model: 'gpt-5',
      contextFiles: CONTEXT,
      skills: SKILLS,
      corePrompt: ({ toolReference }) => `You are Example.\n\n${toolReference}`,
    })
    const compiled = compile(assembly, { tokenizer: 'estimate', volatile: 'error' })
    expect(compiled.sections.map((s) => s.name)).toEqual([
      'layered:core',
      'layered:context-files',
      'layered:skills',
      'layered:tuning',
    ])
    const plain = await build({ contextFiles: CONTEXT, skills: SKILLS })
    for (const name of ['layered:context-files', 'layered:skills']) {
      expect(sectionText(assembly, name)).toBe(sectionText(plain.assembly, name))
    }
    const without = await build({ corePrompt: () => 'You are Example.' })
    expect(compile(without.assembly, { tokenizer: 'estimate' }).sections.map((s) => s.name)).toEqual([
      'layered:core',
    ])
  })

  it('uses a given fragment with models: only for a matching model, never without a model', async () => {
    const gptOnly = parseFragment(
      '---\nid: layered.policies\nmodels: ["gpt-5*"]\n---\nNever touch production.\n',
      { file: '.sysprompt/layered/policies.md' },
    ).fragment!
    const policies = async (model?: string) =>
      sectionText(
        (await build({ fragments: [gptOnly], ...(model === undefined ? {} : { model }) })).assembly,
        'layered:policies',
      )
    const builtin = sectionText((await build()).assembly, 'layered:policies')
    expect(await policies('gpt-5.1')).toBe('# Rules that always apply\n\nNever touch production.')
    expect(await policies('openai/GPT-5-mini')).toBe('# Rules that always apply\n\nNever touch production.')
    expect(await policies('claude-sonnet-4-5')).toBe(builtin)
    expect(await policies()).toBe(builtin)
    expect(await policies('  ')).toBe(builtin)
    // A later override for another family does not shadow an earlier one that matches.
    const claudeOnly = parseFragment('---\nid: layered.policies\nmodels: ["claude-*"]\n---\nAsk first.\n', {
      file: 'p.md',
    }).fragment!
    const both = await build({ model: 'gpt-5', fragments: [gptOnly, claudeOnly] })
    expect(sectionText(both.assembly, 'layered:policies')).toContain('Never touch production.')
  })

  it('lists tools by category in the fixed order with the fixed labels, sorted by name', async () => {
    const { assembly } = await build({ tools: TOOLS })
    const reference = sectionText(assembly, 'layered:tool-reference')
    const labels = Object.values(TOOL_CATEGORY_LABELS).map((label) => reference.indexOf(`## ${label}`))
    expect(labels.every((at) => at > 0)).toBe(true)
    expect([...labels].sort((a, b) => a - b)).toEqual(labels)
    expect(reference.indexOf('`grep`')).toBeLessThan(reference.indexOf('`read`'))
    expect(reference).toContain(
      '- `read`: Read a file, or a range of its lines.\n  - Read a file before you edit it.',
    )
    // An uncategorised tool goes under "other".
    expect(reference.indexOf('`edit`')).toBeGreaterThan(reference.indexOf(`## ${TOOL_CATEGORY_LABELS.other}`))
  })

  it('omits empty categories and says when there are no tools', async () => {
    const one = sectionText(
      (await build({ tools: [{ name: 'bash', category: 'command' }] })).assembly,
      'layered:tool-reference',
    )
    expect(one).toContain(`## ${TOOL_CATEGORY_LABELS.command}\n\n- \`bash\``)
    expect(one).not.toContain(TOOL_CATEGORY_LABELS.search)
    const none = sectionText((await build()).assembly, 'layered:tool-reference')
    expect(none).toMatch(/^# Tools\n\nNo tools are available/)
  })

  it('gives the same bytes whatever order the tools come in', async () => {
    const reference = (await build({ tools: TOOLS })).text
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(TOOLS, { minLength: TOOLS.length }), async (tools) => {
        expect((await build({ tools })).text).toBe(reference)
      }),
      { numRuns: 25 },
    )
  })

  it('inserts tool text literally, template tags included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 40 }).filter((s) => !s.includes('\r')),
        async (inner) => {
          const snippet = `{{${inner}}} [if git:branch]{{#if x}}`
          const { text } = await build({ tools: [{ name: 'x', snippet }] })
          expect(text).toContain(`- \`x\`: ${snippet}`)
        },
      ),
      { numRuns: 50 },
    )
  })

  it('adapts the style section to the surface, terminal by default', async () => {
    const style = async (surface?: 'terminal' | 'app' | 'chat') =>
      sectionText((await build(surface === undefined ? {} : { surface })).assembly, 'layered:style')
    const [byDefault, terminal, app, chat] = await Promise.all([
      style(),
      style('terminal'),
      style('app'),
      style('chat'),
    ])
    expect(byDefault).toBe(terminal)
    expect(terminal).toContain('terminal')
    expect(app).toContain('renders Markdown')
    expect(chat).toContain('chat conversation')
    expect(new Set([terminal, app, chat]).size).toBe(3)
    for (const s of [terminal, app, chat]) expect(s.startsWith('# Style\n\nLead with the answer')).toBe(true)
  })

  it('appends the tuning of the matching model family last', async () => {
    const tuning = async (model?: string) =>
      sectionText((await build(model === undefined ? {} : { model })).assembly, 'layered:tuning')
    const gpt = await tuning('gpt-5.1-codex')
    const claude = await tuning('claude-opus-4-6')
    expect(gpt).toContain('without asking whether to continue')
    expect(claude).toContain('Build what was asked and no more')
    expect(gpt).not.toBe(claude)
    expect(await tuning('anthropic/Claude-Sonnet-4-5')).toBe(claude)
    expect(await tuning('gemini-2.5-pro')).toBe('')
    expect(await tuning()).toBe('')
    const { assembly } = await build({ model: 'gpt-5' })
    const compiled = compile(assembly, { tokenizer: 'estimate' })
    expect(compiled.sections.at(-1)!.name).toBe('layered:tuning')
  })

  it('prefers the tuning option over the model fragments, and takes user tuning fragments by glob', async () => {
    const { assembly } = await build({ model: 'gpt-5', tuning: 'Use metric units.' })
    expect(sectionText(assembly, 'layered:tuning')).toBe('Use metric units.')
    const mine = parseFragment(
      '---\nid: layered.tuning.local\nmodels: ["qwen3-*"]\n---\nKeep thinking short.\n',
      {
        file: '.sysprompt/layered/tuning/local.md',
      },
    ).fragment!
    const local = await build({ model: 'qwen3-coder', fragments: [mine] })
    expect(sectionText(local.assembly, 'layered:tuning')).toBe('Keep thinking short.')
  })

  it('lets corePrompt replace identity … style, handing it the tool reference; tuning stays', async () => {
    let seen = ''
    const { assembly, text } = await build({
      tools: TOOLS,
      model: 'claude-sonnet-4-5',
      corePrompt: ({ toolReference }) => {
        seen = toolReference
        return `You are Example.\n\n${toolReference}`
      },
    })
    const names = assembly.sections.map((s) => s.name).filter((n) => n.startsWith('layered:'))
    expect(names).toEqual(['layered:core', 'layered:tuning'])
    const plain = sectionText((await build({ tools: TOOLS })).assembly, 'layered:tool-reference')
    expect(seen).toBe(plain)
    expect(text.startsWith(`You are Example.\n\n${plain}\n\n# Notes for this model`)).toBe(true)
  })

  it('replaces the words of a built-in fragment given with the same id', async () => {
    const { assembly } = await build({ fragments: [override('layered.policies', 'Never touch production.')] })
    expect(sectionText(assembly, 'layered:policies')).toBe(
      '# Rules that always apply\n\nNever touch production.',
    )
    const surfaced = await build({
      surface: 'chat',
      fragments: [override('layered.style.chat', 'Short lines.')],
    })
    expect(sectionText(surfaced.assembly, 'layered:style')).toMatch(/\n\nShort lines\.$/)
  })

  it('carries no date and no working directory, and nothing per turn', async () => {
    const { assembly, text } = await build({ tools: TOOLS, model: 'gpt-5' })
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/)
    expect(text).not.toContain(process.cwd())
    expect(Object.values(assembly.stability).every((s) => s === 'static')).toBe(true)
    expect(() => compile(assembly, { volatile: 'error' })).not.toThrow()
  })

  it('returns one disposer that removes everything it registered', async () => {
    const { registry, dispose } = await build({ tools: TOOLS, model: 'gpt-5' })
    dispose()
    dispose()
    const empty = await registry.assemble()
    expect(empty.sections.filter((s) => s.name.startsWith('layered:'))).toEqual([])
    expect(Object.keys(empty.variables)).toEqual([])
    layeredPreset(registry, {})
  })

  it('leaves nothing behind when a registration fails', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'layered:policies', order: 0, text: 'mine' })
    expect(() => layeredPreset(registry, {})).toThrow(/layered:policies/)
    const assembly = await registry.assemble()
    expect(assembly.sections.map((s) => s.name)).toEqual([
      'harness:identity',
      'deployment:persona',
      'layered:policies',
    ])
    expect(Object.keys(assembly.variables)).toEqual([])
  })

  it('refuses a duplicate tool, an unknown category or surface', () => {
    const registry = createPromptRegistry()
    const code = (fn: () => unknown) => {
      try {
        fn()
      } catch (error) {
        expect(error).toBeInstanceOf(PresetError)
        return (error as PresetError).code
      }
      return 'no error'
    }
    expect(code(() => layeredPreset(registry, { tools: [{ name: 'a' }, { name: ' a ' }] }))).toBe(
      'duplicate-tool',
    )
    expect(code(() => layeredPreset(registry, { tools: [{ name: 'a', category: 'lsp' as never }] }))).toBe(
      'invalid-option',
    )
    expect(code(() => layeredPreset(registry, { surface: 'web' as never }))).toBe('invalid-option')
    expect(code(() => layeredPreset(registry, { corePrompt: () => 1 as never }))).toBe('invalid-option')
    expect(code(() => layeredPreset(registry, { contextFiles: ['AGENTS.md'] as never }))).toBe(
      'invalid-option',
    )
    expect(code(() => layeredPreset(registry, { skills: 3 as never }))).toBe('invalid-option')
  })

  it('works on a scoped registry', async () => {
    const registry = createPromptRegistry()
    layeredPreset(registry.scope('agent'), {})
    expect((await registry.assemble()).sections.some((s) => s.name.startsWith('layered:'))).toBe(false)
    expect(
      (await registry.assemble({ scope: 'agent' })).sections.some((s) => s.name === 'layered:identity'),
    ).toBe(true)
  })
})
