import { isPlainName, isValidKey } from '../template/keys.js'
import { type AssemblyInputs, assembleFrom } from './assemble.js'
import { RegistryError } from './errors.js'
import { Layer, type MiddlewareEntry } from './layer.js'
import { checkSection, checkToolProvider, checkVariable } from './shapes.js'
import { validateToolOrder } from './tool-order.js'
import type {
  AssembleContext,
  Disposer,
  PromptAssembly,
  PromptRegistrar,
  PromptRegistry,
  PromptRegistryOptions,
  ScopedRegistry,
} from './types.js'

/** Section names the registry registers itself from its options. */
export const IDENTITY_SECTION = 'harness:identity'
export const PERSONA_SECTION = 'deployment:persona'

/**
 * Creates the registry a harness assembles its system prompt from (SPEC §4).
 *
 * Plugins register sections, tool providers, variables, resolvers,
 * protections and middleware, globally or in a scope; every registration
 * returns an idempotent disposer. No plugin framework: plain functions that
 * any plugin system can wrap.
 */
export function createPromptRegistry(options: PromptRegistryOptions = {}): PromptRegistry {
  const toolOrder = validateToolOrder(options.toolOrder)
  const global = new Layer(undefined)
  const scopes = new Map<string, { layer: Layer; api: ScopedRegistry }>()
  const middleware: MiddlewareEntry[] = []
  const listeners = new Set<() => void>()

  const emit = (): void => {
    for (const listener of [...listeners]) {
      try {
        listener()
      } catch (error) {
        // A failing listener must not break the registration that notified it.
        queueMicrotask(() => {
          throw error
        })
      }
    }
  }

  /** Wraps a removal into an idempotent disposer tracked by its layer. */
  const track = (layer: Layer, remove: () => void): Disposer => {
    let done = false
    const dispose = (): void => {
      if (done) return
      done = true
      layer.disposers.delete(dispose)
      remove()
      emit()
    }
    layer.disposers.add(dispose)
    emit()
    return dispose
  }

  const globallyProtectedSection = (name: string): boolean =>
    [...global.protections].some((p) => p.sections?.includes(name) === true)

  const registrar = (layerOf: () => Layer): PromptRegistrar => ({
    section(section) {
      checkSection(section)
      const layer = layerOf()
      if (layer.sections.has(section.name)) {
        throw new RegistryError(
          'duplicate-section',
          layer.scope === undefined
            ? `section "${section.name}" is already registered globally; dispose it first, or register a shadow with registry.scope(key).section(...)`
            : `section "${section.name}" is already registered in scope "${layer.scope}"; dispose it first`,
        )
      }
      if (layer.scope !== undefined && globallyProtectedSection(section.name)) {
        throw new RegistryError(
          'protected-shadow',
          `section "${section.name}" is globally protected and cannot be shadowed in scope "${layer.scope}"; use another name`,
        )
      }
      const entry = { ...section }
      layer.sections.set(section.name, entry)
      return track(layer, () => {
        if (layer.sections.get(section.name) === entry) layer.sections.delete(section.name)
      })
    },
    tools(provider) {
      checkToolProvider(provider)
      const layer = layerOf()
      const entry = { provider }
      layer.toolProviders.add(entry)
      return track(layer, () => layer.toolProviders.delete(entry))
    },
    variable(name, provider, info = {}) {
      const layer = layerOf()
      if (typeof name !== 'string') {
        throw new RegistryError(
          'invalid-registration',
          `registry.variable(name, provider) takes a name string first, got ${typeof name}`,
        )
      }
      if (!isPlainName(name)) {
        throw new RegistryError(
          'invalid-variable-name',
          isValidKey(name)
            ? `variable "${name}" is namespaced; namespaced keys come from resolvers (registry.resolver)`
            : `variable name "${name}" is invalid; names match [a-z][a-z0-9_]* and are not if, else or endif`,
        )
      }
      if (layer.variables.has(name)) {
        throw new RegistryError(
          'duplicate-variable',
          layer.scope === undefined
            ? `variable "${name}" is already registered globally; dispose it first, or shadow it with registry.scope(key).variable(...)`
            : `variable "${name}" is already registered in scope "${layer.scope}"; dispose it first`,
        )
      }
      checkVariable(name, provider, info)
      const entry = { provider, info: { ...info } }
      layer.variables.set(name, entry)
      return track(layer, () => {
        if (layer.variables.get(name) === entry) layer.variables.delete(name)
      })
    },
    resolver(resolver) {
      const layer = layerOf()
      const ns = resolver.namespace
      if (!isValidKey(`${ns}:x`) || ns.includes(':')) {
        throw new RegistryError(
          'invalid-variable-name',
          `resolver namespace "${ns}" is invalid; namespaces match [a-z][a-z0-9_-]*`,
        )
      }
      if (layer.resolvers.has(ns)) {
        throw new RegistryError(
          'duplicate-resolver',
          `a resolver for namespace "${ns}" is already registered ${layer.label}; dispose it first, or shadow it in a scope`,
        )
      }
      layer.resolvers.set(ns, resolver)
      return track(layer, () => {
        if (layer.resolvers.get(ns) === resolver) layer.resolvers.delete(ns)
      })
    },
    protect(protection) {
      const layer = layerOf()
      const sections = [...new Set(protection.sections ?? [])]
      const tools = [...new Set(protection.tools ?? [])]
      if (sections.length === 0 && tools.length === 0) {
        throw new RegistryError('empty-protection', 'protect() needs at least one section or tool name')
      }
      if (layer.scope === undefined) {
        const shadowed = [...scopes.values()].flatMap(({ layer: l }) =>
          sections.filter((name) => l.sections.has(name)),
        )
        if (shadowed.length > 0) {
          throw new RegistryError(
            'protected-shadow',
            `cannot protect section ${[...new Set(shadowed)].map((n) => `"${n}"`).join(', ')} globally while a scope shadows it; dispose the scoped section first`,
          )
        }
      }
      const entry = { sections, tools }
      layer.protections.add(entry)
      return track(layer, () => layer.protections.delete(entry))
    },
    use(fn) {
      const layer = layerOf()
      const entry: MiddlewareEntry = { scope: layer.scope, fn }
      middleware.push(entry)
      return track(layer, () => {
        const i = middleware.indexOf(entry)
        if (i >= 0) middleware.splice(i, 1)
      })
    },
  })

  const scope = (key: string): ScopedRegistry => {
    if (typeof key !== 'string' || key.length === 0)
      throw new TypeError('scope(key): the key must be a non-empty string')
    const existing = scopes.get(key)
    if (existing !== undefined) return existing.api
    const layer = new Layer(key)
    const api: ScopedRegistry = {
      key,
      ...registrar(() => layer),
      // Disposing empties the scope and keeps the object: the same key keeps
      // meaning the same object, and registering on it again works.
      dispose() {
        for (const dispose of [...layer.disposers]) dispose()
      },
    }
    scopes.set(key, { layer, api })
    return api
  }

  const api = registrar(() => global)
  api.section({ name: IDENTITY_SECTION, order: -100, text: options.identity ?? '' })
  api.section({ name: PERSONA_SECTION, order: 0, text: options.persona ?? '' })

  return {
    ...api,
    onChange(listener) {
      const entry = (): void => listener()
      listeners.add(entry)
      return () => {
        listeners.delete(entry)
      }
    },
    scope,
    assemble(ctx: AssembleContext = {}): Promise<PromptAssembly> {
      const scoped = ctx.scope === undefined ? undefined : scopes.get(ctx.scope)?.layer
      const inputs: AssemblyInputs = {
        layers: scoped === undefined ? [global] : [global, scoped],
        middleware: middleware.filter((m) => m.scope === undefined || m.scope === ctx.scope).map((m) => m.fn),
        toolOrder,
      }
      // assembleFrom is async: its synchronous part snapshots every input now,
      // so later registrations affect the next assembly, and errors surface
      // as rejections, never as synchronous throws.
      return assembleFrom(inputs, ctx)
    },
  }
}
