import { describe, expect, it } from 'vitest'
import { createPromptRegistry } from './create-registry.js'
import { RegistryError } from './errors.js'
import type { VariableResolver } from './types.js'

// The whole message and code of each refusal `createPromptRegistry` makes
// itself (duplicates, names, namespaces, protections, scopes, what a
// provider produced), global and scoped: the line a plugin author reads.

function resolverOf(namespace: string): VariableResolver {
  return { namespace, describe: () => [], resolve: async () => new Map() }
}

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryError)
    expect((error as RegistryError).name).toBe('RegistryError')
    const { code, message } = error as RegistryError
    return { code, message }
  }
  throw new Error('expected a RegistryError')
}

describe('duplicates name the layer and what to do', () => {
  it('sections', () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'x', order: 1, text: 'a' })
    expect(refusal(() => registry.section({ name: 'x', order: 2, text: 'b' }))).toEqual({
      code: 'duplicate-section',
      message:
        'section "x" is already registered globally; dispose it first, or register a shadow with registry.scope(key).section(...) [duplicate-section]',
    })
    const scoped = registry.scope('team')
    scoped.section({ name: 'x', order: 1, text: 'shadow' })
    expect(refusal(() => scoped.section({ name: 'x', order: 2, text: 'b' }))).toEqual({
      code: 'duplicate-section',
      message: 'section "x" is already registered in scope "team"; dispose it first [duplicate-section]',
    })
    // The identity and persona sections are registered from the options.
    expect(refusal(() => registry.section({ name: 'harness:identity', order: 1, text: '' })).code).toBe(
      'duplicate-section',
    )
  })

  it('variables', () => {
    const registry = createPromptRegistry()
    registry.variable('model', () => 'm')
    expect(refusal(() => registry.variable('model', () => 'n'))).toEqual({
      code: 'duplicate-variable',
      message:
        'variable "model" is already registered globally; dispose it first, or shadow it with registry.scope(key).variable(...) [duplicate-variable]',
    })
    const scoped = registry.scope('team')
    scoped.variable('model', () => 'shadow')
    expect(refusal(() => scoped.variable('model', () => 'n'))).toEqual({
      code: 'duplicate-variable',
      message:
        'variable "model" is already registered in scope "team"; dispose it first [duplicate-variable]',
    })
  })

  it('resolvers', () => {
    const registry = createPromptRegistry()
    const resolver = resolverOf('git')
    registry.resolver(resolver)
    expect(refusal(() => registry.resolver({ ...resolver }))).toEqual({
      code: 'duplicate-resolver',
      message:
        'a resolver for namespace "git" is already registered globally; dispose it first, or shadow it in a scope [duplicate-resolver]',
    })
    const scoped = registry.scope('team')
    scoped.resolver({ ...resolver })
    expect(refusal(() => scoped.resolver({ ...resolver })).message).toBe(
      'a resolver for namespace "git" is already registered in scope "team"; dispose it first, or shadow it in a scope [duplicate-resolver]',
    )
  })
})

describe('names', () => {
  it('a variable name: plain names only, namespaced ones come from resolvers', () => {
    const registry = createPromptRegistry()
    expect(refusal(() => registry.variable('git:branch', () => 'v'))).toEqual({
      code: 'invalid-variable-name',
      message:
        'variable "git:branch" is namespaced; namespaced keys come from resolvers (registry.resolver) [invalid-variable-name]',
    })
    for (const bad of ['Model', 'if', '1x', '']) {
      expect(refusal(() => registry.variable(bad, () => 'v'))).toEqual({
        code: 'invalid-variable-name',
        message: `variable name "${bad}" is invalid; names match [a-z][a-z0-9_]* and are not if, else or endif [invalid-variable-name]`,
      })
    }
    expect(refusal(() => registry.variable(7 as never, () => 'v'))).toEqual({
      code: 'invalid-registration',
      message:
        'registry.variable(name, provider) takes a name string first, got number [invalid-registration]',
    })
    // The name is checked before the provider.
    expect(refusal(() => registry.variable('Bad', 'x' as never)).code).toBe('invalid-variable-name')
  })

  it('a resolver namespace: one segment of [a-z][a-z0-9_-]*', () => {
    const registry = createPromptRegistry()
    for (const ns of ['Git', 'a:b', '', '1x']) {
      expect(refusal(() => registry.resolver(resolverOf(ns)))).toEqual({
        code: 'invalid-variable-name',
        message: `resolver namespace "${ns}" is invalid; namespaces match [a-z][a-z0-9_-]* [invalid-variable-name]`,
      })
    }
    expect(() => registry.resolver(resolverOf('my-tool_2'))).not.toThrow()
  })

  it('a scope key: a non-empty string', () => {
    const registry = createPromptRegistry()
    expect(() => registry.scope('')).toThrow(new TypeError('scope(key): the key must be a non-empty string'))
    expect(() => registry.scope(3 as never)).toThrow(TypeError)
    expect(registry.scope('a').key).toBe('a')
  })
})

describe('protections', () => {
  it('need a name, and repeated names count once', async () => {
    const registry = createPromptRegistry()
    expect(refusal(() => registry.protect({ sections: [], tools: [] }))).toEqual({
      code: 'empty-protection',
      message: 'protect() needs at least one section or tool name [empty-protection]',
    })
    registry.section({ name: 'a', order: 1, text: 'A' })
    expect(() => registry.protect({ sections: ['a', 'a'] })).not.toThrow()
    expect(() => registry.protect({ tools: ['t'] })).not.toThrow()
  })

  it('a global one names every section a scope shadows, once each', () => {
    const registry = createPromptRegistry()
    registry.scope('one').section({ name: 'a', order: 1, text: 'x' })
    registry.scope('two').section({ name: 'a', order: 1, text: 'x' })
    registry.scope('two').section({ name: 'b', order: 2, text: 'x' })
    expect(refusal(() => registry.protect({ sections: ['a', 'b', 'c'] }))).toEqual({
      code: 'protected-shadow',
      message:
        'cannot protect section "a", "b" globally while a scope shadows it; dispose the scoped section first [protected-shadow]',
    })
    // A scoped protection does not look at other scopes.
    expect(() => registry.scope('three').protect({ sections: ['a'] })).not.toThrow()
  })

  it('a global one forbids a scoped shadow, naming the scope', () => {
    const registry = createPromptRegistry()
    registry.protect({ sections: ['deployment:persona'], tools: ['read'] })
    expect(
      refusal(() => registry.scope('s').section({ name: 'deployment:persona', order: 0, text: 'x' })),
    ).toEqual({
      code: 'protected-shadow',
      message:
        'section "deployment:persona" is globally protected and cannot be shadowed in scope "s"; use another name [protected-shadow]',
    })
    // A scoped protection does not forbid shadows in other scopes.
    registry.scope('t').protect({ sections: ['x'] })
    expect(() => registry.scope('u').section({ name: 'x', order: 1, text: 'x' })).not.toThrow()
  })
})

describe('what providers produce', () => {
  it('a section text that is not a string rejects the assembly, naming the section', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'bad', order: 1, text: () => 3 as never })
    await expect(registry.assemble()).rejects.toThrow(
      new TypeError('section "bad" produced number; a section\'s text must be a string'),
    )
  })

  it('a variable value that is not a string rejects the assembly; null counts as no value', async () => {
    const registry = createPromptRegistry()
    registry.variable('n', () => null as never)
    expect((await registry.assemble()).variables).toEqual({ n: undefined })
    registry.variable('bad', () => 1 as never)
    await expect(registry.assemble()).rejects.toThrow(
      new TypeError('variable "bad" produced number; a variable\'s value must be a string or undefined'),
    )
  })
})

describe('change listeners', () => {
  it('each registration of a listener is its own; its disposer removes only it', () => {
    const registry = createPromptRegistry()
    let calls = 0
    const listener = () => {
      calls++
    }
    const first = registry.onChange(listener)
    registry.onChange(listener)
    const dispose = registry.variable('a', () => 'x')
    expect(calls).toBe(2)
    first()
    dispose()
    expect(calls).toBe(3)
  })
})
