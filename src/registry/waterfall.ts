import { RegistryError } from './errors.js'
import type { AssembleContext, AssembleMiddleware, PromptAssembly } from './types.js'

function describe(middleware: AssembleMiddleware, index: number): string {
  return middleware.name !== '' ? `middleware "${middleware.name}"` : `middleware #${index + 1} (anonymous)`
}

function isAssembly(value: unknown): value is PromptAssembly {
  if (value === null || typeof value !== 'object') return false
  const a = value as Partial<PromptAssembly>
  return (
    Array.isArray(a.sections) &&
    Array.isArray(a.tools) &&
    typeof a.variables === 'object' &&
    a.variables !== null &&
    typeof a.stability === 'object' &&
    a.stability !== null
  )
}

/**
 * Runs the assembly waterfall: each middleware, in registration order, gets
 * the assembly and a `next` that runs the rest (with a replacement assembly
 * when given one) and may be called once. Each must return an assembly.
 */
export function runWaterfall(
  middleware: readonly AssembleMiddleware[],
  assembly: PromptAssembly,
  ctx: AssembleContext,
): Promise<PromptAssembly> {
  const step = async (index: number, current: PromptAssembly): Promise<PromptAssembly> => {
    const fn = middleware[index]
    if (fn === undefined) return current
    let called = false
    const next = (replacement?: PromptAssembly): Promise<PromptAssembly> => {
      if (called) {
        return Promise.reject(
          new RegistryError(
            'next-called-twice',
            `${describe(fn, index)} called next() twice; call it at most once`,
          ),
        )
      }
      called = true
      return step(index + 1, replacement ?? current)
    }
    const result = await fn(current, ctx, next)
    if (!isAssembly(result)) {
      throw new RegistryError(
        'middleware-result',
        `${describe(fn, index)} returned ${result === undefined ? 'nothing' : 'something that is not an assembly (sections, tools, variables, stability)'}; return an assembly (usually \`return next()\`)`,
      )
    }
    return result
  }
  return step(0, assembly)
}
