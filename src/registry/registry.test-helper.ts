import type { PromptAssembly, VariableResolver } from './types.js'

/** A tool schema with a `path` parameter. */
export const schema = (name: string, description?: string) => ({
  name,
  ...(description === undefined ? {} : { description }),
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
})

/** A resolver answering from `values`, recording the keys it is asked for in `calls`. */
export function resolverFor(
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

/** The section names of an assembly, in order. */
export const names = (a: PromptAssembly) => a.sections.map((s) => s.name)
