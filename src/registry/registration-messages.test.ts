import { describe, expect, it } from 'vitest'
import { createPromptRegistry } from './create-registry.js'
import { RegistryError } from './errors.js'
import { checkSection, checkToolContribution, checkVariable } from './shapes.js'
import { byCodeUnit, orderTools, TOOL_ORDER_REST, validateToolOrder } from './tool-order.js'
import type { PromptAssembly } from './types.js'

// The whole message of each registration error: what users of plain
// JavaScript plugins read to fix their call (the key expected, what came
// instead, what to do), one line each.

const params = { type: 'object' }
const tool = (name: string) => ({ name, parameters: params })

function messageOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryError)
    const { code, message } = error as RegistryError
    expect(code).toMatch(/^(invalid-registration|tool-order-invalid|tool-order-unknown)$/)
    // Every registry message ends with its code.
    expect(message.endsWith(` [${code}]`)).toBe(true)
    return message.slice(0, -` [${code}]`.length)
  }
  throw new Error('expected a RegistryError')
}

describe('section shapes', () => {
  it.each([
    [null, 'registry.section() takes { name, order, text }, got null; pass an object with those keys'],
    [[], 'registry.section() takes { name, order, text }, got an array; pass an object with those keys'],
    ['x', 'registry.section() takes { name, order, text }, got string; pass an object with those keys'],
    [{}, 'registry.section(): expected key "name" (a non-empty string), got no keys'],
    [
      { name: '', order: 1 },
      'section "": expected key "name" (a non-empty string), got keys "name", "order"',
    ],
    [{ name: 7 }, 'registry.section(): expected key "name" (a non-empty string), got keys "name"'],
    [{ name: 'a' }, 'section "a": expected key "order" (a finite number), got undefined'],
    [{ name: 'a', order: Number.NaN }, 'section "a": expected key "order" (a finite number), got number'],
    [{ name: 'a', order: Infinity }, 'section "a": expected key "order" (a finite number), got number'],
    [
      { name: 'a', order: 1 },
      'section "a": expected key "text" (a string or (ctx) => string), got keys "name", "order"',
    ],
    [
      { name: 'a', order: 1, text: 3 },
      'section "a": expected key "text" (a string or (ctx) => string), got number',
    ],
    [
      { name: 'a', order: 1, text: 'x', dialect: 'jinja' },
      'section "a": key "dialect" must be "mustache" or "bracket", got "jinja"',
    ],
    [
      { name: 'a', order: 1, text: 'x', stability: 'forever' },
      'section "a": key "stability" must be "static", "session" or "turn", got "forever"',
    ],
    [
      { name: 'a', order: 1, text: 'x', priority: '1' },
      'section "a": key "priority" must be a finite number, got string',
    ],
    [
      { name: 'a', order: 1, text: 'x', priority: Number.NaN },
      'section "a": key "priority" must be a finite number, got number',
    ],
  ])('%j', (section, message) => {
    expect(messageOf(() => checkSection(section))).toBe(message)
  })

  it('accepts every documented field', () => {
    for (const dialect of ['mustache', 'bracket', undefined]) {
      for (const stability of ['static', 'session', 'turn', undefined]) {
        checkSection({ name: 'a', order: -1.5, text: () => 'x', dialect, stability, priority: 0 })
      }
    }
  })
})

describe('tool contributions', () => {
  it.each([
    [
      undefined,
      'a tool provider must return { schemas: ToolSchema[] }: expected key "schemas" (an array), got undefined',
    ],
    [
      { tools: [] },
      'a tool provider must return { schemas: ToolSchema[] }: expected key "schemas" (an array), got keys "tools"',
    ],
    [
      { schemas: {} },
      'a tool provider must return { schemas: ToolSchema[] }: expected key "schemas" (an array), got keys "schemas"',
    ],
    [
      { schemas: [tool('a'), null] },
      'a tool provider\'s schemas[1]: expected key "name" (a non-empty string)',
    ],
    [
      { schemas: [{ name: '', parameters: params }] },
      'a tool provider\'s schemas[0]: expected key "name" (a non-empty string)',
    ],
    [
      { schemas: [{ name: 'a', parameters: [] }] },
      'tool "a": expected key "parameters" (a JSON Schema object)',
    ],
    [{ schemas: [], knownNames: 'a' }, 'a tool provider\'s key "knownNames" must be an array of strings'],
    [
      { schemas: [], knownNames: ['a', 1] },
      'a tool provider\'s key "knownNames" must be an array of strings',
    ],
  ])('%j', (value, message) => {
    expect(messageOf(() => checkToolContribution(value))).toBe(message)
  })

  it('accepts schemas with known names', () => {
    checkToolContribution({ schemas: [tool('a')], knownNames: ['a', 'b'] })
    checkToolContribution({ schemas: [] })
  })

  it('a provider that is not a function', () => {
    expect(messageOf(() => createPromptRegistry().tools(null as never))).toBe(
      'registry.tools() takes a function (ctx) => ({ schemas: ToolSchema[] }), got null',
    )
  })
})

describe('variables', () => {
  it.each([
    [
      'gpt-5',
      undefined,
      'variable "model": expected a provider function (ctx) => string | undefined, got string; wrap a fixed value as () => value',
    ],
    [() => 'x', 'static', 'variable "model": info must be { stability?, description? }, got string'],
    [() => 'x', null, 'variable "model": info must be { stability?, description? }, got null'],
    [
      () => 'x',
      { stability: 'daily' },
      'variable "model": key "stability" must be "static", "session" or "turn", got "daily"',
    ],
  ])('%j %j', (provider, info, message) => {
    expect(messageOf(() => checkVariable('model', provider, info))).toBe(message)
  })

  it('accepts each stability and none', () => {
    for (const stability of ['static', 'session', 'turn', undefined])
      checkVariable('model', () => 'x', { stability })
    checkVariable('model', () => 'x', undefined)
  })
})

describe('tool order', () => {
  it('orders by code unit, not by locale', () => {
    expect(['b', 'B', 'a', 'é', 'A', 'a'].sort(byCodeUnit)).toEqual(['A', 'B', 'a', 'a', 'b', 'é'])
    expect(byCodeUnit('a', 'a')).toBe(0)
    expect(byCodeUnit('a', 'b')).toBe(-1)
    expect(byCodeUnit('b', 'a')).toBe(1)
  })

  it('refuses a duplicate or a missing rest entry, saying what to do', () => {
    expect(messageOf(() => validateToolOrder(['a', TOOL_ORDER_REST, 'a']))).toBe(
      'toolOrder lists "a" twice; list each tool once',
    )
    expect(messageOf(() => validateToolOrder(['a']))).toBe(
      'toolOrder has no "<unlisted-tools>" entry; add it where tools the list does not name should go',
    )
    expect(validateToolOrder(undefined)).toBeUndefined()
    const order = ['b', TOOL_ORDER_REST]
    const copy = validateToolOrder(order)
    expect(copy).toEqual(order)
    expect(copy).not.toBe(order)
  })

  it('puts listed tools where listed and the rest, by name, at the rest entry', () => {
    const tools = ['d', 'b', 'a', 'c'].map(tool)
    const names = (order?: string[]) =>
      orderTools(tools, order, new Set(['a', 'b', 'c', 'd', 'e'])).map((t) => t.name)
    expect(names()).toEqual(['a', 'b', 'c', 'd'])
    expect(names(['c', TOOL_ORDER_REST, 'a'])).toEqual(['c', 'b', 'd', 'a'])
    expect(names([TOOL_ORDER_REST, 'e', 'b'])).toEqual(['a', 'c', 'd', 'b'])
  })

  it('names every unknown tool and the known ones, or none', () => {
    expect(messageOf(() => orderTools([], ['x', TOOL_ORDER_REST, 'y'], new Set(['b', 'a'])))).toBe(
      'toolOrder names "x", "y", which no tool provider knows; known tools: a, b',
    )
    expect(messageOf(() => orderTools([], ['x', TOOL_ORDER_REST], new Set()))).toBe(
      'toolOrder names "x", which no tool provider knows; known tools: (none)',
    )
  })
})

describe('the waterfall', () => {
  it.each([
    [() => undefined, 'returned nothing'],
    [(a: PromptAssembly) => ({ ...a, sections: undefined }), 'returned something that is not an assembly'],
    [(a: PromptAssembly) => ({ ...a, tools: {} }), 'returned something that is not an assembly'],
    [(a: PromptAssembly) => ({ ...a, variables: null }), 'returned something that is not an assembly'],
    [(a: PromptAssembly) => ({ ...a, variables: 'x' }), 'returned something that is not an assembly'],
    [(a: PromptAssembly) => ({ ...a, stability: null }), 'returned something that is not an assembly'],
    [(a: PromptAssembly) => ({ ...a, stability: 1 }), 'returned something that is not an assembly'],
    [() => null, 'returned something that is not an assembly'],
    [() => 'text', 'returned something that is not an assembly'],
  ])('refuses %s', async (change, what) => {
    const registry = createPromptRegistry()
    registry.use(async (_a, _ctx, next) => change(await next()) as never)
    await expect(registry.assemble()).rejects.toMatchObject({
      code: 'middleware-result',
      message: `middleware #1 (anonymous) ${what}${what === 'returned nothing' ? '' : ' (sections, tools, variables, stability)'}; return an assembly (usually \`return next()\`) [middleware-result]`,
    })
  })

  it('numbers anonymous middleware by registration and passes a replacement on', async () => {
    const registry = createPromptRegistry()
    registry.use(async (a, _ctx, next) => next({ ...a, sections: [] }))
    registry.use(async (_a, _ctx, next) => {
      await next()
      return next()
    })
    await expect(registry.assemble()).rejects.toMatchObject({
      code: 'next-called-twice',
      message: 'middleware #2 (anonymous) called next() twice; call it at most once [next-called-twice]',
    })
    const other = createPromptRegistry()
    other.use(async (a, _ctx, next) => next({ ...a, sections: [] }))
    expect((await other.assemble()).sections).toEqual([])
  })
})
