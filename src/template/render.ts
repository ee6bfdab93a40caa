import { TemplateError } from './errors.js'
import { type Instruction, Op } from './program.js'

/** The values a template renders with: a string is present, `null`/`undefined`/missing is absent. */
export type TemplateValues =
  | ReadonlyMap<string, string | null | undefined>
  | Readonly<Record<string, string | null | undefined>>

/** What `render` needs to know about the template it runs. */
export interface RenderTarget {
  readonly source: string
  readonly name: string | undefined
  readonly strict: boolean
  readonly variables: readonly string[]
  readonly variableOffsets: readonly number[]
  readonly program: readonly Instruction[]
}

const hasOwn = Object.hasOwn

function isMapLike(values: TemplateValues): values is ReadonlyMap<string, string | null | undefined> {
  return (
    typeof (values as ReadonlyMap<string, unknown>).get === 'function' && typeof values.has === 'function'
  )
}

/** Reads one value: the string, or `undefined` when absent. Anything else is a programming error. */
function read(values: TemplateValues, isMap: boolean, key: string): string | undefined {
  const value = isMap
    ? (values as ReadonlyMap<string, unknown>).get(key)
    : hasOwn(values, key)
      ? (values as Record<string, unknown>)[key]
      : undefined
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return undefined
  throw new TypeError(
    `template value for "${key}" is ${typeof value}; values must be strings, null or undefined`,
  )
}

function has(values: TemplateValues, isMap: boolean, key: string): boolean {
  return isMap ? (values as ReadonlyMap<string, unknown>).has(key) : hasOwn(values, key)
}

/**
 * Runs a compiled program. One loop, no recursion: `If` jumps past a branch
 * whose test fails, `Jump` skips an `else` branch. Both modes first check the
 * type of every referenced value; strict mode also checks that every
 * referenced key is known (so a typo in a branch not taken still fails),
 * then fails on an insertion whose value is absent.
 */
export function render(target: RenderTarget, values: TemplateValues): string {
  if (values === null || typeof values !== 'object') {
    throw new TypeError('template values must be a Map or a plain object')
  }
  const { program, strict } = target
  // Each referenced key is looked up once, into a slot the program indexes:
  // type-checked whichever branches run, and known-checked in strict mode.
  const resolved = resolveAll(target, values, isMapLike(values))
  let out = ''
  const n = program.length
  let pc = 0
  while (pc < n) {
    const ins = program[pc]!
    switch (ins.op) {
      case Op.Text:
        out += ins.text
        pc++
        break
      case Op.Insert: {
        const value = resolved[ins.slot]
        if (value !== undefined) out += value
        else if (strict) throw valueless(target, ins)
        pc++
        break
      }
      case Op.If:
        pc = (resolved[ins.slot] !== undefined) !== ins.negated ? pc + 1 : ins.target
        break
      default:
        pc = ins.target
    }
  }
  return out
}

/** The value of every referenced key, by slot; in strict mode an unknown key throws. */
function resolveAll(target: RenderTarget, values: TemplateValues, isMap: boolean): (string | undefined)[] {
  const { variables, strict } = target
  const resolved = new Array<string | undefined>(variables.length)
  for (let i = 0; i < variables.length; i++) {
    const key = variables[i]!
    if (strict && !has(values, isMap, key)) throw unknown(target, values, isMap, i)
    resolved[i] = read(values, isMap, key)
  }
  return resolved
}

function unknown(target: RenderTarget, values: TemplateValues, isMap: boolean, slot: number): TemplateError {
  const key = target.variables[slot]!
  const known = (isMap ? [...(values as ReadonlyMap<string, unknown>).keys()] : Object.keys(values)).sort()
  return TemplateError.at(target.source, target.variableOffsets[slot]!, {
    code: 'unknown-variable',
    template: target.name,
    known,
    detail: `unknown variable "${key}"; known: ${known.length > 0 ? known.join(', ') : '(none)'}. Provide a value for it or fix the name`,
  })
}

function valueless(target: RenderTarget, ins: Instruction): TemplateError {
  return TemplateError.at(target.source, ins.offset, {
    code: 'valueless-variable',
    template: target.name,
    detail: `variable "${ins.text}" has no value here; give it a string, or guard the insertion with a conditional`,
  })
}
