import { RegistryError } from './errors.js'
import type { PromptSection, ToolContribution, VariableOptions } from './types.js'

// Registrations usually come from plugin code written in plain JavaScript, so
// the types do not protect them: a wrong shape must fail at the call with the
// key that was expected, not later as a raw TypeError deep in an assembly.

const STABILITIES = new Set(['static', 'session', 'turn'])
const DIALECTS = new Set(['mustache', 'bracket'])

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const describeValue = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value

const keysOf = (value: Record<string, unknown>): string =>
  Object.keys(value).length === 0
    ? 'no keys'
    : `keys ${Object.keys(value)
        .map((k) => `"${k}"`)
        .join(', ')}`

function invalid(message: string): RegistryError {
  return new RegistryError('invalid-registration', message)
}

/** Checks `registry.section(...)`: `{ name, order, text, dialect?, stability?, priority? }`. */
export function checkSection(section: unknown): asserts section is PromptSection {
  if (!isObject(section)) {
    throw invalid(
      `registry.section() takes { name, order, text }, got ${describeValue(section)}; pass an object with those keys`,
    )
  }
  const label = typeof section.name === 'string' ? `section "${section.name}"` : 'registry.section()'
  if (typeof section.name !== 'string' || section.name.length === 0) {
    throw invalid(`${label}: expected key "name" (a non-empty string), got ${keysOf(section)}`)
  }
  if (typeof section.order !== 'number' || !Number.isFinite(section.order)) {
    throw invalid(`${label}: expected key "order" (a finite number), got ${describeValue(section.order)}`)
  }
  if (typeof section.text !== 'string' && typeof section.text !== 'function') {
    throw invalid(
      `${label}: expected key "text" (a string or (ctx) => string), got ${section.text === undefined ? keysOf(section) : describeValue(section.text)}`,
    )
  }
  if (section.dialect !== undefined && !DIALECTS.has(section.dialect as string)) {
    throw invalid(
      `${label}: key "dialect" must be "mustache" or "bracket", got ${JSON.stringify(section.dialect)}`,
    )
  }
  if (section.stability !== undefined && !STABILITIES.has(section.stability as string)) {
    throw invalid(
      `${label}: key "stability" must be "static", "session" or "turn", got ${JSON.stringify(section.stability)}`,
    )
  }
  if (
    section.priority !== undefined &&
    (typeof section.priority !== 'number' || !Number.isFinite(section.priority))
  ) {
    throw invalid(`${label}: key "priority" must be a finite number, got ${describeValue(section.priority)}`)
  }
}

/** Checks the function given to `registry.tools(...)`. */
export function checkToolProvider(provider: unknown): void {
  if (typeof provider !== 'function') {
    throw invalid(
      `registry.tools() takes a function (ctx) => ({ schemas: ToolSchema[] }), got ${describeValue(provider)}`,
    )
  }
}

/** Checks what a tool provider returned for one assembly: `{ schemas: ToolSchema[], knownNames?: string[] }`. */
export function checkToolContribution(value: unknown): asserts value is ToolContribution {
  if (!isObject(value) || !Array.isArray(value.schemas)) {
    const got = isObject(value) ? keysOf(value) : describeValue(value)
    throw invalid(
      `a tool provider must return { schemas: ToolSchema[] }: expected key "schemas" (an array), got ${got}`,
    )
  }
  for (const [i, tool] of value.schemas.entries()) {
    if (!isObject(tool) || typeof tool.name !== 'string' || tool.name.length === 0) {
      throw invalid(`a tool provider's schemas[${i}]: expected key "name" (a non-empty string)`)
    }
    if (!isObject(tool.parameters)) {
      throw invalid(`tool "${tool.name}": expected key "parameters" (a JSON Schema object)`)
    }
  }
  if (
    value.knownNames !== undefined &&
    (!Array.isArray(value.knownNames) || value.knownNames.some((n) => typeof n !== 'string'))
  ) {
    throw invalid('a tool provider\'s key "knownNames" must be an array of strings')
  }
}

/** Checks `registry.variable(name, provider, info?)` once the name is known to be valid. */
export function checkVariable(
  name: string,
  provider: unknown,
  info: unknown,
): asserts info is VariableOptions {
  if (typeof provider !== 'function') {
    throw invalid(
      `variable "${name}": expected a provider function (ctx) => string | undefined, got ${describeValue(provider)}; wrap a fixed value as () => value`,
    )
  }
  if (info === undefined) return
  if (!isObject(info)) {
    throw invalid(`variable "${name}": info must be { stability?, description? }, got ${describeValue(info)}`)
  }
  if (info.stability !== undefined && !STABILITIES.has(info.stability as string)) {
    throw invalid(
      `variable "${name}": key "stability" must be "static", "session" or "turn", got ${JSON.stringify(info.stability)}`,
    )
  }
}
