import { describe, expect, it } from 'vitest'
import { createPromptRegistry } from './create-registry.js'
import { RegistryError } from './errors.js'
import { names, schema } from './registry.test-helper.js'
import { renderPrompt } from './render-prompt.js'
import type { PromptAssembly } from './types.js'

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
    await expect(typo.assemble()).rejects.toMatchObject({ code: 'tool-order-unknown' })
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

  it('refuses a result that is not a whole assembly (no stability map)', async () => {
    const registry = createPromptRegistry()
    registry.use(async function partial(a, _ctx, next) {
      await next()
      return { sections: a.sections, tools: a.tools, variables: a.variables } as unknown as PromptAssembly
    })
    await expect(registry.assemble()).rejects.toMatchObject({
      code: 'middleware-result',
      message: expect.stringContaining('"partial"'),
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
