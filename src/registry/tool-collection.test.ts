import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPromptRegistry } from './create-registry.js'
import { byCodeUnit } from './tool-order.js'
import type { ToolSchema } from './types.js'

// Tools are collected into a plain list while their names arrive in strictly
// ascending order, and into a map by name from the first name out of order:
// the assembly must hold what the map alone would give, whatever the order,
// duplicates and layers.

const NAMES = ['a', 'b', 'c', 'd', 'e']

const tool = (name: string, from: string): ToolSchema => ({
  name,
  description: `from ${from}`,
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
})

/** What collection must give: the last tool of each name (global providers first, then the scope's), in name order. */
function reference(providers: ToolSchema[][]): ToolSchema[] {
  const byName = new Map<string, ToolSchema>()
  for (const schemas of providers) for (const t of schemas) byName.set(t.name, t)
  return [...byName.values()].sort((x, y) => byCodeUnit(x.name, y.name))
}

describe('tool collection', () => {
  it('property: any names, order and duplicates, global and scoped, give the last tool of each name', async () => {
    const list = (from: string) =>
      fc
        .array(fc.constantFrom(...NAMES), { maxLength: 6 })
        .map((names) => names.map((n, i) => tool(n, `${from} #${i}`)))
    await fc.assert(
      fc.asyncProperty(
        fc.array(list('global'), { maxLength: 3 }),
        fc.array(list('scoped'), { maxLength: 2 }),
        async (globalLists, scopedLists) => {
          const registry = createPromptRegistry()
          for (const schemas of globalLists) registry.tools(() => ({ schemas }))
          const scope = registry.scope('s')
          for (const schemas of scopedLists) scope.tools(() => ({ schemas }))
          expect((await registry.assemble()).tools).toEqual(reference(globalLists))
          expect((await registry.assemble({ scope: 's' })).tools).toEqual(
            reference([...globalLists, ...scopedLists]),
          )
        },
      ),
    )
  })

  it('a scoped tool replaces the global one of its name even when every list is in name order', async () => {
    const registry = createPromptRegistry()
    registry.tools(() => ({ schemas: [tool('a', 'global'), tool('b', 'global')] }))
    registry.scope('s').tools(() => ({ schemas: [tool('b', 'scoped'), tool('c', 'scoped')] }))
    const tools = (await registry.assemble({ scope: 's' })).tools
    expect(tools.map((t) => `${t.name} ${t.description}`)).toEqual([
      'a from global',
      'b from scoped',
      'c from scoped',
    ])
  })
})
