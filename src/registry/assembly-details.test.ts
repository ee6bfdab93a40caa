import { afterEach, describe, expect, it, vi } from 'vitest'
import { createPromptRegistry } from './create-registry.js'
import { schema } from './registry.test-helper.js'
import { renderSections } from './render-prompt.js'
import { keyStability } from './resolve-variables.js'
import { orderTools } from './tool-order.js'
import type { AssembledSection, PromptAssembly, VariableResolver } from './types.js'

// Assembly rules at their edges: protections of tools alone, what a
// disposer takes back, a listener that throws, keys that follow a text that
// changes, tool order from any provider order, stabilities from a catalog,
// and where inserted values land once a section is normalised.

afterEach(() => {
  vi.unstubAllGlobals()
})

function resolver(namespace: string, asked: string[][]): VariableResolver {
  return {
    namespace,
    describe: () => [],
    async resolve(keys) {
      asked.push(keys)
      return new Map(keys.map((k) => [k, `<${k}>`]))
    },
  }
}

describe('protections and disposers', () => {
  it('restores a protected tool when no section is protected', async () => {
    const registry = createPromptRegistry()
    registry.tools(() => ({ schemas: [schema('read', 'canonical'), schema('write')] }))
    registry.protect({ tools: ['read'] })
    registry.use(async (a, _ctx, next) =>
      next({ ...a, tools: [{ name: 'read', description: 'hijacked', parameters: {} }] }),
    )
    expect((await registry.assemble()).tools).toEqual([schema('read', 'canonical')])
  })

  it('a global protection of tools only leaves section shadows alone', () => {
    const registry = createPromptRegistry()
    registry.protect({ tools: ['read'] })
    expect(() =>
      registry.scope('s').section({ name: 'deployment:persona', order: 0, text: 'x' }),
    ).not.toThrow()
  })

  it('a global protection may name a section registered globally after it', async () => {
    const registry = createPromptRegistry()
    registry.protect({ sections: ['a'] })
    registry.section({ name: 'a', order: 1, text: 'A' })
    registry.use(async (a, _ctx, next) => next({ ...a, sections: [] }))
    expect((await registry.assemble()).sections.map((s) => s.name)).toEqual(['a'])
  })

  it('a disposed protection protects no more', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'a', order: 1, text: 'A' })
    const dispose = registry.protect({ sections: ['a'] })
    registry.use(async (a, _ctx, next) => next({ ...a, sections: a.sections.filter((s) => s.name !== 'a') }))
    expect((await registry.assemble()).sections.map((s) => s.name)).toContain('a')
    dispose()
    expect((await registry.assemble()).sections.map((s) => s.name)).not.toContain('a')
  })

  it('a disposed resolver resolves no more, and frees its namespace', async () => {
    const registry = createPromptRegistry()
    const asked: string[][] = []
    registry.section({ name: 's', order: 1, text: '{{git:branch}}' })
    const dispose = registry.resolver(resolver('git', asked))
    expect((await registry.assemble()).variables).toEqual({ 'git:branch': '<git:branch>' })
    dispose()
    expect((await registry.assemble()).variables).toEqual({})
    expect(asked).toEqual([['git:branch']])
    expect(() => registry.resolver(resolver('git', asked))).not.toThrow()
  })

  it('a disposed middleware runs no more, the others still do', async () => {
    const registry = createPromptRegistry()
    const ran: string[] = []
    const first = registry.use(async (_a, _ctx, next) => {
      ran.push('first')
      return next()
    })
    registry.use(async (_a, _ctx, next) => {
      ran.push('second')
      return next()
    })
    first()
    await registry.assemble()
    expect(ran).toEqual(['second'])
  })
})

describe('change listeners', () => {
  it('a listener that throws does not break the registration; its error surfaces on its own', () => {
    const queued: (() => void)[] = []
    vi.stubGlobal('queueMicrotask', (task: () => void) => queued.push(task))
    const registry = createPromptRegistry()
    const failure = new Error('listener failed')
    const heard: string[] = []
    registry.onChange(() => {
      throw failure
    })
    registry.onChange(() => heard.push('after'))
    const dispose = registry.section({ name: 'a', order: 1, text: 'A' })
    expect(typeof dispose).toBe('function')
    expect(heard).toEqual(['after'])
    expect(queued).toHaveLength(1)
    expect(() => queued[0]!()).toThrow(failure)
  })
})

describe('assembly', () => {
  it('asks resolvers for the keys of the text a function section gives on each assembly', async () => {
    const registry = createPromptRegistry()
    const asked: string[][] = []
    let text = '{{git:branch}}'
    registry.section({ name: 's', order: 1, text: () => text })
    registry.resolver(resolver('git', asked))
    await registry.assemble()
    text = '{{git:commit}}'
    expect((await registry.assemble()).variables).toEqual({ 'git:commit': '<git:commit>' })
    await registry.assemble()
    expect(asked).toEqual([['git:branch'], ['git:commit'], ['git:commit']])
  })

  it('names the reserved tool name a provider used', async () => {
    const registry = createPromptRegistry()
    registry.tools(() => ({ schemas: [schema('<unlisted-tools>')] }))
    await expect(registry.assemble()).rejects.toThrow(
      'a tool provider returned a tool named "<unlisted-tools>"; that name is reserved for toolOrder [reserved-tool-name]',
    )
  })

  it('orders tools by name whatever order a provider lists them in', async () => {
    const registry = createPromptRegistry()
    registry.tools(() => ({ schemas: ['write', 'read', 'bash'].map((n) => schema(n)) }))
    registry.tools(() => ({ schemas: ['b', 'a'].map((n) => schema(n)) }))
    expect((await registry.assemble()).tools.map((t) => t.name)).toEqual(['a', 'b', 'bash', 'read', 'write'])
    const tools = ['b', 'a'].map((n) => schema(n))
    expect(orderTools(tools, undefined, new Set()).map((t) => t.name)).toEqual(['a', 'b'])
    const sorted = ['a', 'b'].map((n) => schema(n))
    const result = orderTools(sorted, undefined, new Set())
    // A new list: the caller's is left as it was.
    expect(result).toEqual(sorted)
    expect(result).not.toBe(sorted)
  })
})

describe('keyStability', () => {
  const catalog = (entries: ReturnType<VariableResolver['describe']>): VariableResolver => ({
    namespace: 'env',
    describe: () => entries,
    resolve: async () => new Map(),
  })

  it('prefers the entry naming the key over a pattern listed before it', () => {
    const env = catalog([
      { key: 'env:<any>', description: 'any', stability: 'static', pattern: true },
      { key: 'env:HOME', description: 'home', stability: 'turn', pattern: false },
    ])
    expect(keyStability(env, 'env:HOME')).toBe('turn')
    expect(keyStability(env, 'env:PATH')).toBe('static')
  })

  it('never takes a pattern entry for the entry naming a key, even when written with that key', () => {
    const env = catalog([
      { key: 'env:<any>', description: 'any', stability: 'static', pattern: true },
      { key: 'env:HOME', description: 'home', stability: 'turn', pattern: true },
    ])
    expect(keyStability(env, 'env:HOME')).toBe('static')
  })

  it('is session when the catalog names the key nowhere and has no pattern', () => {
    const env = catalog([{ key: 'env:HOME', description: 'home', stability: 'turn' }])
    expect(keyStability(env, 'env:PATH')).toBe('session')
  })
})

describe('insertions after normalisation', () => {
  const assembly = (text: string, variables: Record<string, string>): PromptAssembly => ({
    sections: [
      { name: 's', order: 1, text, dialect: 'mustache', stability: 'static' } satisfies AssembledSection,
    ],
    tools: [],
    variables,
    stability: {},
  })

  it('strips leading lines of spaces and tabs, keeps the first line’s indentation', () => {
    const [r] = renderSections(assembly(' \t\n\t \n  Head {{x}}', { x: 'v' }))
    expect(r?.text).toBe('  Head v')
    expect(r?.insertions).toEqual([{ key: 'x', start: 7, end: 8 }])
  })

  it('places a value that starts with CRLF where its line break lands', () => {
    const [r] = renderSections(assembly('A{{x}}', { x: '\r\nB' }))
    expect(r?.text).toBe('A\nB')
    expect(r?.insertions).toEqual([{ key: 'x', start: 1, end: 3 }])
  })

  it('leaves out a value normalised away', () => {
    const [r] = renderSections(assembly('Text{{x}}', { x: '  \n' }))
    expect(r?.text).toBe('Text')
    expect(r?.insertions).toEqual([])
  })
})
