import { describe, expect, it, vi } from 'vitest'
import { TemplateError } from '../template/index.js'
import { createPromptRegistry } from './create-registry.js'
import { RegistryError } from './errors.js'
import { renderPrompt } from './render-prompt.js'
import type { PromptAssembly, VariableResolver } from './types.js'

const schema = (name: string, description?: string) => ({
  name,
  ...(description === undefined ? {} : { description }),
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
})

function resolverFor(
  namespace: string,
  values: Record<string, string | null>,
  calls: string[][] = [],
): VariableResolver {
  return {
    namespace,
    describe: () => [
      { key: `${namespace}:turny`, description: 'changes each turn', stability: 'turn' },
      { key: `${namespace}:<any>`, description: 'anything', stability: 'session', pattern: true },
    ],
    async resolve(keys) {
      calls.push(keys)
      return new Map(keys.map((k) => [k, values[k] ?? null]))
    },
  }
}

const names = (a: PromptAssembly) => a.sections.map((s) => s.name)

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
    expect(registry.scope('s')).not.toBe(s)
  })
})

describe('tools', () => {
  it('collects global then scoped providers, in code-unit name order, parameters deep-cloned', async () => {
    const registry = createPromptRegistry()
    const shared = schema('read')
    registry.tools(() => ({ schemas: [schema('write'), shared] }))
    registry.scope('a').tools(() => ({ schemas: [schema('Zeta'), schema('bash')] }))
    const assembly = await registry.assemble({ scope: 'a' })
    expect(assembly.tools.map((t) => t.name)).toEqual(['Zeta', 'bash', 'read', 'write'])
    const read = assembly.tools.find((t) => t.name === 'read')!
    expect(read.parameters).toEqual(shared.parameters)
    expect(read.parameters).not.toBe(shared.parameters)
    ;(read.parameters.properties as Record<string, unknown>).path = 'mutated'
    expect(shared.parameters.properties.path).toEqual({ type: 'string' })
  })

  it('orders by toolOrder with the rest entry where unlisted tools go', async () => {
    const registry = createPromptRegistry({ toolOrder: ['bash', '<unlisted-tools>', 'read'] })
    registry.tools(() => ({ schemas: ['read', 'grep', 'bash', 'edit'].map((n) => schema(n)) }))
    expect((await registry.assemble()).tools.map((t) => t.name)).toEqual(['bash', 'edit', 'grep', 'read'])
  })

  it('refuses a toolOrder without the rest entry or with duplicates at construction', () => {
    expect(() => createPromptRegistry({ toolOrder: ['a', 'b'] })).toThrow(
      expect.objectContaining({ code: 'tool-order-invalid' }),
    )
    expect(() => createPromptRegistry({ toolOrder: ['a', '<unlisted-tools>', 'a'] })).toThrow(/twice/)
  })

  it('rejects an assembly whose toolOrder names an unknown tool, listing the known ones; a known but absent tool is fine', async () => {
    const registry = createPromptRegistry({ toolOrder: ['<unlisted-tools>', 'web_search'] })
    registry.tools(() => ({ schemas: [schema('read')], knownNames: ['read', 'web_search'] }))
    expect((await registry.assemble()).tools.map((t) => t.name)).toEqual(['read'])
    const typo = createPromptRegistry({ toolOrder: ['<unlisted-tools>', 'web_serch'] })
    typo.tools(() => ({ schemas: [schema('read'), schema('web_search')] }))
    await expect(typo.assemble()).rejects.toThrow(/"web_serch".*known tools: read, web_search/)
  })

  it('rejects a tool named <unlisted-tools>', async () => {
    const registry = createPromptRegistry()
    registry.tools(() => ({ schemas: [schema('<unlisted-tools>')] }))
    await expect(registry.assemble()).rejects.toMatchObject({ code: 'reserved-tool-name' })
  })
})

describe('waterfall', () => {
  it('runs middleware in registration order, global and scoped interleaved, scoped only for its scope', async () => {
    const registry = createPromptRegistry()
    const seen: string[] = []
    const mark =
      (label: string) => async (_a: PromptAssembly, _ctx: unknown, next: () => Promise<PromptAssembly>) => {
        seen.push(label)
        return next()
      }
    registry.use(mark('g1'))
    registry.scope('s').use(mark('s1'))
    registry.use(mark('g2'))
    await registry.assemble({ scope: 's' })
    expect(seen).toEqual(['g1', 's1', 'g2'])
    seen.length = 0
    await registry.assemble()
    expect(seen).toEqual(['g1', 'g2'])
  })

  it('lets middleware replace the assembly and post-process the rest', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'a', order: 1, text: 'A' })
    registry.use(async (a, _ctx, next) => {
      const after = await next({
        ...a,
        sections: [...a.sections, { ...a.sections[2]!, name: 'b', text: 'B' }],
      })
      return { ...after, sections: after.sections.map((s) => ({ ...s, text: s.text.toLowerCase() })) }
    })
    expect(renderPrompt(await registry.assemble())).toBe('a\n\nb')
  })

  it('fails when next() is called twice or nothing is returned, naming the middleware', async () => {
    const registry = createPromptRegistry()
    const dispose = registry.use(async function twice(_a, _ctx, next) {
      await next()
      return next()
    })
    await expect(registry.assemble()).rejects.toMatchObject({
      code: 'next-called-twice',
      message: expect.stringContaining('"twice"'),
    })
    dispose()
    registry.use(async function forgetful() {
      return undefined as unknown as PromptAssembly
    })
    await expect(registry.assemble()).rejects.toMatchObject({
      code: 'middleware-result',
      message: expect.stringContaining('"forgetful"'),
    })
  })

  it('registrations made while an assembly is in flight affect the next one', async () => {
    const registry = createPromptRegistry()
    const gates: Array<() => void> = []
    let entered: () => void = () => {}
    registry.use(async (_a, _ctx, next) => {
      entered()
      await new Promise<void>((r) => gates.push(r))
      return next()
    })
    const inside = new Promise<void>((r) => {
      entered = r
    })
    const pending = registry.assemble()
    registry.section({ name: 'late', order: 1, text: 'L' })
    await inside
    gates.shift()!()
    expect(names(await pending)).not.toContain('late')
    const second = registry.assemble()
    await new Promise((r) => setTimeout(r, 0))
    gates.shift()!()
    expect(names(await second)).toContain('late')
  })
})

describe('protections', () => {
  async function setup(protection: { sections?: string[]; tools?: string[] }) {
    const registry = createPromptRegistry()
    for (const [i, n] of ['a', 'b', 'c', 'd'].entries())
      registry.section({ name: n, order: i + 1, text: n.toUpperCase() })
    registry.tools(() => ({ schemas: [schema('t1'), schema('t2', 'canonical')] }))
    registry.protect(protection)
    return registry
  }

  it('restores a removed or rewritten protected section at its anchor', async () => {
    const registry = await setup({ sections: ['b'] })
    registry.use(async (a, _ctx, next) => {
      const sections = a.sections
        .filter((s) => s.name !== 'b')
        .map((s) => (s.name === 'c' ? { ...s, text: 'changed' } : s))
      return next({ ...a, sections })
    })
    const assembly = await registry.assemble()
    expect(names(assembly)).toEqual(['harness:identity', 'deployment:persona', 'a', 'b', 'c', 'd'])
    expect(renderPrompt(assembly)).toBe('A\n\nB\n\nchanged\n\nD')
  })

  it('anchors before the first later unprotected neighbour that survived, else at the end', async () => {
    const registry = await setup({ sections: ['b', 'c'] })
    registry.use(async (a, _ctx, next) =>
      next({
        ...a,
        sections: a.sections.filter((s) => s.name === 'a' || s.name === 'deployment:persona').reverse(),
      }),
    )
    expect(names(await registry.assemble())).toEqual(['a', 'deployment:persona', 'b', 'c'])
  })

  it('removes a protected name that was canonically absent, restores protected tools', async () => {
    const registry = await setup({ sections: ['ghost'], tools: ['t2'] })
    registry.use(async (a, _ctx, next) =>
      next({
        ...a,
        sections: [
          ...a.sections,
          { name: 'ghost', order: 9, text: 'injected', dialect: 'mustache', stability: 'static' },
        ],
        tools: [{ name: 't2', description: 'hijacked', parameters: {} }],
      }),
    )
    const assembly = await registry.assemble()
    expect(names(assembly)).not.toContain('ghost')
    expect(assembly.tools).toEqual([schema('t2', 'canonical')])
  })

  it('a global section protection forbids scoped shadows, in either order', () => {
    const registry = createPromptRegistry()
    registry.protect({ sections: ['deployment:persona'] })
    expect(() => registry.scope('s').section({ name: 'deployment:persona', order: 0, text: 'x' })).toThrow(
      expect.objectContaining({ code: 'protected-shadow' }),
    )
    const other = createPromptRegistry()
    other.scope('s').section({ name: 'x', order: 0, text: 'x' })
    expect(() => other.protect({ sections: ['x'] })).toThrow(
      expect.objectContaining({ code: 'protected-shadow' }),
    )
  })

  it('refuses an empty protection', () => {
    expect(() => createPromptRegistry().protect({})).toThrow(
      expect.objectContaining({ code: 'empty-protection' }),
    )
    expect(() => createPromptRegistry().protect({ sections: [], tools: [] })).toThrow(RegistryError)
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
