import { describe, expect, it, vi } from 'vitest'
import { TemplateError } from '../template/index.js'
import { createPromptRegistry } from './create-registry.js'
import { RegistryError } from './errors.js'
import { names, resolverFor, schema } from './registry.test-helper.js'
import { renderPrompt } from './render-prompt.js'
import type { VariableResolver } from './types.js'

describe('sections', () => {
  it('a bare registry renders nothing: identity and persona default to empty', async () => {
    const registry = createPromptRegistry()
    const assembly = await registry.assemble()
    expect(names(assembly)).toEqual(['harness:identity', 'deployment:persona'])
    expect(renderPrompt(assembly)).toBe('')
  })

  it('sorts by order, keeps registration order for equal orders, puts negative orders before the persona', async () => {
    const registry = createPromptRegistry({ identity: 'I am the harness.', persona: 'You review code.' })
    registry.section({ name: 'tool:b', order: 100, text: 'B' })
    registry.section({ name: 'tool:a', order: 100, text: 'A' })
    registry.section({ name: 'early', order: -5, text: 'E' })
    const assembly = await registry.assemble()
    expect(names(assembly)).toEqual(['harness:identity', 'early', 'deployment:persona', 'tool:b', 'tool:a'])
    expect(renderPrompt(assembly)).toBe('I am the harness.\n\nE\n\nYou review code.\n\nB\n\nA')
  })

  it('resolves per-context text and keeps texts uninterpolated in the assembly', async () => {
    const registry = createPromptRegistry()
    registry.variable('model', (ctx) => ctx.model)
    registry.section({
      name: 'who',
      order: 1,
      text: (ctx) => `Agent ${String(ctx.workspaceId)} on {{model}}`,
    })
    const assembly = await registry.assemble({ model: 'm-1', workspaceId: 'w' })
    expect(assembly.sections.find((s) => s.name === 'who')?.text).toBe('Agent w on {{model}}')
    expect(renderPrompt(assembly)).toBe('Agent w on m-1')
  })

  it('refuses a duplicate name in one layer and names the scoped alternative', () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'x', order: 1, text: 'a' })
    expect(() => registry.section({ name: 'x', order: 2, text: 'b' })).toThrow(
      /registry\.scope\(key\)\.section/,
    )
    try {
      registry.section({ name: 'x', order: 2, text: 'b' })
    } catch (e) {
      expect(e).toBeInstanceOf(RegistryError)
      expect((e as RegistryError).code).toBe('duplicate-section')
    }
  })

  it('defaults dialect to mustache and stability to static, keeps priority', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'p', order: 1, text: 't', priority: 3 })
    registry.section({ name: 'b', order: 2, text: '[x:y]', dialect: 'bracket', stability: 'session' })
    const [, , p, b] = (await registry.assemble()).sections
    expect(p).toMatchObject({ dialect: 'mustache', stability: 'static', priority: 3 })
    expect(b).toMatchObject({ dialect: 'bracket', stability: 'session' })
    expect(b).not.toHaveProperty('priority')
  })

  it('reports a strict template error naming the section', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'tool:read', order: 100, text: 'Read files.\nUse {{ path }}.' })
    const assembly = await registry.assemble()
    expect(() => renderPrompt(assembly)).toThrow(TemplateError)
    expect(() => renderPrompt(assembly)).toThrow(/template "tool:read" line 2, column 5/)
  })
})

describe('variables', () => {
  it('refuses invalid and namespaced names, and duplicates', () => {
    const registry = createPromptRegistry()
    for (const bad of ['Model', '1x', 'if', 'a b', '']) {
      expect(() => registry.variable(bad, () => 'v')).toThrow(
        expect.objectContaining({ code: 'invalid-variable-name' }),
      )
    }
    expect(() => registry.variable('git:branch', () => 'v')).toThrow(/resolvers/)
    registry.variable('model', () => 'v')
    expect(() => registry.variable('model', () => 'w')).toThrow(
      expect.objectContaining({ code: 'duplicate-variable' }),
    )
  })

  it('an undefined value is valueless at render, a missing variable unknown', async () => {
    const registry = createPromptRegistry()
    registry.variable('cwd', () => undefined)
    registry.section({ name: 'where', order: 1, text: 'In {{cwd}}' })
    const assembly = await registry.assemble()
    expect(Object.hasOwn(assembly.variables, 'cwd')).toBe(true)
    expect(() => renderPrompt(assembly)).toThrow(
      expect.objectContaining({ code: 'valueless-variable', template: 'where' }),
    )
    registry.section({ name: 'other', order: 2, text: '{{#if cwd}}x{{/if}} {{nope}}' })
    expect(() => renderPrompt(assembly)).toThrow(expect.objectContaining({ code: 'valueless-variable' }))
    const again = await registry.assemble()
    expect(() => renderPrompt({ ...again, sections: again.sections.slice(-1) })).toThrow(
      expect.objectContaining({ code: 'unknown-variable', known: ['cwd'] }),
    )
  })

  it('records each variable stability, session by default', async () => {
    const registry = createPromptRegistry()
    registry.variable('model', () => 'm')
    registry.variable('date', () => '2026-01-01', { stability: 'turn' })
    expect((await registry.assemble()).stability).toEqual({ model: 'session', date: 'turn' })
  })
})

describe('resolvers', () => {
  it('resolves only the namespaced keys the sections reference, once per resolver', async () => {
    const calls: string[][] = []
    const registry = createPromptRegistry()
    registry.resolver(resolverFor('git', { 'git:branch': 'main', 'git:status': 'clean' }, calls))
    registry.section({ name: 'a', order: 1, text: 'on [git:branch] [git:branch]', dialect: 'bracket' })
    registry.section({ name: 'b', order: 2, text: '{{#if git:turny}}x{{/if}}' })
    const assembly = await registry.assemble()
    expect(calls).toEqual([['git:branch', 'git:turny']])
    expect(assembly.variables).toEqual({ 'git:branch': 'main', 'git:turny': undefined })
    expect(assembly.stability).toEqual({ 'git:branch': 'session', 'git:turny': 'turn' })
    expect(renderPrompt(assembly)).toBe('on main main')
  })

  it('leaves keys of a namespace without a resolver unknown', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'a', order: 1, text: '{{file:README.md}}' })
    registry.section({ name: 'b', order: 2, text: 'x[file:README.md]', dialect: 'bracket' })
    const assembly = await registry.assemble()
    expect(assembly.variables).toEqual({})
    expect(() => renderPrompt(assembly)).toThrow(
      expect.objectContaining({ code: 'unknown-variable', template: 'a' }),
    )
    expect(renderPrompt({ ...assembly, sections: assembly.sections.filter((s) => s.name === 'b') })).toBe('x')
  })

  it('leaves keys of a namespace without a resolver unknown while another namespace has one', async () => {
    const calls: string[][] = []
    const registry = createPromptRegistry()
    registry.resolver(resolverFor('git', { 'git:branch': 'main' }, calls))
    registry.section({ name: 'a', order: 1, text: '{{file:README.md}} {{git:branch}}' })
    registry.section({ name: 'b', order: 2, text: 'x[file:README.md] [git:branch]', dialect: 'bracket' })
    const assembly = await registry.assemble()
    // A key two sections share is asked for once.
    expect(calls).toEqual([['git:branch']])
    expect(assembly.variables).toEqual({ 'git:branch': 'main' })
    expect(() => renderPrompt(assembly)).toThrow(
      expect.objectContaining({ code: 'unknown-variable', template: 'a' }),
    )
    expect(renderPrompt({ ...assembly, sections: assembly.sections.filter((s) => s.name === 'b') })).toBe(
      'x main',
    )
  })

  it('waits for a resolver that answers on a later turn, and fails with one that fails then', async () => {
    const later = (namespace: string, answer: () => Map<string, string>): VariableResolver => ({
      namespace,
      describe: () => [],
      async resolve() {
        // A real resolver reads files or runs git: its answer comes after other tasks ran.
        await new Promise((resolve) => setTimeout(resolve, 0))
        return answer()
      },
    })
    const registry = createPromptRegistry()
    registry.resolver(later('git', () => new Map([['git:branch', 'main']])))
    registry.section({ name: 'a', order: 1, text: 'on {{git:branch}}' })
    const assembly = await registry.assemble()
    expect(assembly.variables).toEqual({ 'git:branch': 'main' })
    expect(renderPrompt(assembly)).toBe('on main')
    const failing = createPromptRegistry()
    failing.resolver(
      later('git', () => {
        throw new Error('git is not installed')
      }),
    )
    failing.section({ name: 'a', order: 1, text: 'on {{git:branch}}' })
    await expect(failing.assemble()).rejects.toThrow('git is not installed')
  })

  it('a lenient section keeps an unclosed block as text while resolvers are registered', async () => {
    const registry = createPromptRegistry()
    registry.resolver(resolverFor('git', { 'git:dirty': 'yes', 'git:branch': 'main' }))
    registry.section({ name: 'a', order: 1, text: '[if git:dirty]dirty [git:branch]', dialect: 'bracket' })
    const assembly = await registry.assemble()
    expect(assembly.variables).toEqual({ 'git:dirty': 'yes', 'git:branch': 'main' })
    expect(renderPrompt(assembly)).toBe('[if git:dirty]dirty main')
  })

  it('one resolver per namespace per layer; a scoped one shadows the global', async () => {
    const registry = createPromptRegistry()
    registry.resolver(resolverFor('git', { 'git:branch': 'main' }))
    expect(() => registry.resolver(resolverFor('git', {}))).toThrow(
      expect.objectContaining({ code: 'duplicate-resolver' }),
    )
    expect(() => registry.resolver(resolverFor('Bad', {}))).toThrow(RegistryError)
    registry.scope('agent').resolver(resolverFor('git', { 'git:branch': 'feature' }))
    registry.section({ name: 'a', order: 1, text: '{{git:branch}}' })
    expect(renderPrompt(await registry.assemble())).toBe('main')
    expect(renderPrompt(await registry.assemble({ scope: 'agent' }))).toBe('feature')
  })
})

describe('scopes', () => {
  it('returns the same object for the same key', () => {
    const registry = createPromptRegistry()
    expect(registry.scope('a')).toBe(registry.scope('a'))
    expect(registry.scope('a')).not.toBe(registry.scope('b'))
  })

  it('scoped sections and variables shadow global ones only for their scope', async () => {
    const registry = createPromptRegistry({ persona: 'Global persona for {{model}}.' })
    registry.variable('model', () => 'global-model')
    const agent = registry.scope('reviewer')
    agent.section({ name: 'deployment:persona', order: 0, text: 'Reviewer on {{model}}.' })
    agent.variable('model', () => 'scoped-model')
    agent.section({ name: 'only-here', order: 5, text: 'Scoped extra.' })
    expect(renderPrompt(await registry.assemble())).toBe('Global persona for global-model.')
    expect(renderPrompt(await registry.assemble({ scope: 'reviewer' }))).toBe(
      'Reviewer on scoped-model.\n\nScoped extra.',
    )
    expect(renderPrompt(await registry.assemble({ scope: 'someone-else' }))).toBe(
      'Global persona for global-model.',
    )
  })

  it('dispose() removes everything registered in the scope and leaves no residue', async () => {
    const registry = createPromptRegistry({ persona: 'P' })
    const before = await registry.assemble({ scope: 's' })
    const s = registry.scope('s')
    s.section({ name: 'x', order: 1, text: 'X' })
    s.variable('v', () => 'v')
    s.tools(() => ({ schemas: [schema('scoped_tool')] }))
    s.use(async (a, _ctx, next) => next({ ...a, sections: [] }))
    s.protect({ tools: ['scoped_tool'] })
    s.resolver(resolverFor('git', {}))
    expect(renderPrompt(await registry.assemble({ scope: 's' }))).toBe('')
    s.dispose()
    expect(await registry.assemble({ scope: 's' })).toEqual(before)
    s.dispose() // idempotent
    expect(registry.scope('s')).toBe(s)
  })

  it('a disposed scope stays the same object and takes registrations again', async () => {
    const registry = createPromptRegistry()
    const s = registry.scope('s')
    s.section({ name: 'x', order: 1, text: 'X' })
    s.dispose()
    registry.scope('s').section({ name: 'y', order: 2, text: 'Y' })
    s.section({ name: 'z', order: 3, text: 'Z' })
    expect(renderPrompt(await registry.assemble({ scope: 's' }))).toBe('Y\n\nZ')
  })
})

describe('change events and disposers', () => {
  it('emits on every registration and on the first dispose only', () => {
    const registry = createPromptRegistry()
    const listener = vi.fn()
    const off = registry.onChange(listener)
    const dispose = registry.section({ name: 'x', order: 1, text: 'x' })
    registry.variable('v', () => 'v')
    expect(listener).toHaveBeenCalledTimes(2)
    dispose()
    dispose()
    expect(listener).toHaveBeenCalledTimes(3)
    off()
    registry.section({ name: 'x', order: 1, text: 'again' })
    expect(listener).toHaveBeenCalledTimes(3)
  })

  it('a disposed registration frees its name', async () => {
    const registry = createPromptRegistry()
    const dispose = registry.variable('v', () => 'one')
    dispose()
    registry.variable('v', () => 'two')
    registry.section({ name: 's', order: 1, text: '{{v}}' })
    expect(renderPrompt(await registry.assemble())).toBe('two')
  })
})
