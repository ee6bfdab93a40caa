import { compileTemplate, keyNamespace } from '../template/index.js'
import { cloneJson, copyJson, plainPrototype } from './clone-json.js'
import { RegistryError } from './errors.js'
import type { Layer } from './layer.js'
import { restoreProtected } from './protect.js'
import { keyStability } from './resolve-variables.js'
import { attachSlots, type SectionSlot, slotAt, slotsOf } from './section-slot.js'
import { checkToolContribution } from './shapes.js'
import { orderTools, TOOL_ORDER_REST } from './tool-order.js'
import type {
  AssembleContext,
  AssembledSection,
  AssembleMiddleware,
  PromptAssembly,
  PromptSection,
  Stability,
  ToolSchema,
  VariableResolver,
} from './types.js'
import { runWaterfall } from './waterfall.js'

/** The layers one assembly sees, snapshotted when it starts. */
export interface AssemblyInputs {
  layers: readonly Layer[] // global first, then the scope's (which shadows)
  middleware: readonly AssembleMiddleware[]
  toolOrder: readonly string[] | undefined
}

function resolveSection(section: PromptSection, ctx: AssembleContext): AssembledSection {
  const text = typeof section.text === 'function' ? section.text(ctx) : section.text
  if (typeof text !== 'string') {
    throw new TypeError(
      `section "${section.name}" produced ${typeof text}; a section's text must be a string`,
    )
  }
  const out: AssembledSection = {
    name: section.name,
    order: section.order,
    text,
    dialect: section.dialect ?? 'mustache',
    stability: section.stability ?? 'static',
  }
  if (section.priority !== undefined) out.priority = section.priority
  return out
}

/** The namespaced keys a section's text references, remembered in its registration's slot while its text and dialect stay. */
function namespacedKeys(section: AssembledSection, slot: SectionSlot | undefined): readonly string[] {
  const memo = slot?.keys
  if (memo !== undefined && memo.text === section.text && memo.dialect === section.dialect) return memo.keys
  const keys = compileTemplate(section.text, { dialect: section.dialect, strict: false }).variables.filter(
    (key) => keyNamespace(key) !== undefined,
  )
  if (slot !== undefined) slot.keys = { text: section.text, dialect: section.dialect, keys }
  return keys
}

const NO_NAMES: ReadonlySet<string> = new Set()

function collectTools(
  layers: readonly Layer[],
  ctx: AssembleContext,
  toolOrder: AssemblyInputs['toolOrder'],
): ToolSchema[] {
  // While the names arrive in strictly ascending order (a provider usually lists its tools by name)
  // no name can repeat, so the copies go straight into a list; the first name out of order moves
  // them into a map by name, where a later (scoped) provider's tool replaces an earlier one.
  const list: ToolSchema[] = []
  let byName: Map<string, ToolSchema> | undefined
  // Known names matter only to a configured toolOrder (a listed name no provider knows).
  const known = toolOrder === undefined ? undefined : new Set<string>()
  for (const layer of layers) {
    for (const { provider } of layer.toolProviders) {
      const contribution = provider(ctx)
      checkToolContribution(contribution)
      const { schemas, knownNames } = contribution
      // Read once per provider, after it ran (it is user code): see cloneJson.
      const plain = plainPrototype()
      for (const tool of schemas) {
        if (tool.name === TOOL_ORDER_REST) {
          throw new RegistryError(
            'reserved-tool-name',
            `a tool provider returned a tool named "${TOOL_ORDER_REST}"; that name is reserved for toolOrder`,
          )
        }
        const copy = { ...tool, parameters: copyJson(tool.parameters, plain) }
        if (byName === undefined) {
          const last = list[list.length - 1]
          if (last === undefined || last.name < tool.name) {
            list.push(copy)
            continue
          }
          byName = new Map()
          for (const listed of list) byName.set(listed.name, listed)
        }
        byName.delete(tool.name)
        byName.set(tool.name, copy)
      }
      if (known !== undefined)
        for (const name of knownNames ?? schemas.map((tool) => tool.name)) known.add(name)
    }
  }
  return orderTools(byName === undefined ? list : [...byName.values()], toolOrder, known ?? NO_NAMES)
}

/**
 * Resolves the namespaced keys the sections reference, with the resolver each
 * namespace has (a scoped one shadows); `undefined` when no key needs one
 * (nothing to wait for).
 */
function resolveNamespaced(
  sections: readonly AssembledSection[],
  resolvers: ReadonlyMap<string, VariableResolver>,
  ctx: AssembleContext,
  variables: Record<string, string | undefined>,
  stability: Record<string, Stability>,
): Promise<void> | undefined {
  const wanted = new Map<VariableResolver, string[]>()
  const slots = slotsOf(sections)
  for (let i = 0; i < sections.length; i++) {
    const keys = namespacedKeys(sections[i]!, slotAt(slots, sections, i))
    if (keys.length === 0) continue
    for (const key of keys) {
      const resolver = resolvers.get(keyNamespace(key)!)
      if (resolver === undefined || Object.hasOwn(variables, key)) continue
      variables[key] = undefined
      const list = wanted.get(resolver)
      if (list === undefined) wanted.set(resolver, [key])
      else list.push(key)
    }
  }
  if (wanted.size === 0) return undefined
  return Promise.all(
    [...wanted].map(async ([resolver, keys]) => {
      const values = await resolver.resolve(keys, ctx)
      for (const key of keys) {
        const value = values.get(key)
        variables[key] = typeof value === 'string' ? value : undefined
        stability[key] = keyStability(resolver, key)
      }
    }),
  ).then(() => undefined)
}

/**
 * The resolved sections sorted by order (stable), each with its registration
 * (so it keeps its memo slot). Registrations usually come in order already:
 * one pass finds that and skips the sort.
 */
function sortedByOrder(
  registered: PromptSection[],
  resolved: AssembledSection[],
): { sections: AssembledSection[]; registrations: PromptSection[] } {
  let sorted = true
  for (let i = 1; i < resolved.length && sorted; i++) sorted = resolved[i - 1]!.order <= resolved[i]!.order
  if (sorted) return { sections: resolved, registrations: registered }
  const byOrder = resolved.map((_, i) => i).sort((a, b) => resolved[a]!.order - resolved[b]!.order)
  return { sections: byOrder.map((i) => resolved[i]!), registrations: byOrder.map((i) => registered[i]!) }
}

/**
 * One assembly (SPEC §4): sections merged by name (a scoped one shadows the
 * global) and sorted by order, variables and resolved namespaced keys, tools
 * in canonical order; then the waterfall; then protections restored.
 */
export async function assembleFrom(inputs: AssemblyInputs, ctx: AssembleContext): Promise<PromptAssembly> {
  const { layers } = inputs
  // Created only when a layer has protections (most assemblies have none: no sets to build).
  let protectedSections: Set<string> | undefined
  let protectedTools: Set<string> | undefined
  // A scoped section takes the place of the global one it shadows; without scoped sections the
  // global registrations are the list as they stand (no map rebuilt per assembly).
  const shadowing = layers.some((layer, i) => i > 0 && layer.sections.size > 0)
  const sectionByName = shadowing ? new Map<string, PromptSection>() : undefined
  const resolvers = new Map<string, VariableResolver>()
  const variables: Record<string, string | undefined> = {}
  const stability: Record<string, Stability> = {}
  for (const layer of layers) {
    for (const p of layer.protections) {
      for (const name of p.sections ?? []) {
        protectedSections ??= new Set()
        protectedSections.add(name)
      }
      for (const name of p.tools ?? []) {
        protectedTools ??= new Set()
        protectedTools.add(name)
      }
    }
    if (sectionByName !== undefined)
      for (const [name, section] of layer.sections) sectionByName.set(name, section)
    for (const [ns, resolver] of layer.resolvers) resolvers.set(ns, resolver)
  }
  for (const layer of layers) {
    for (const [name, { provider, info }] of layer.variables) {
      const value = provider(ctx)
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw new TypeError(
          `variable "${name}" produced ${typeof value}; a variable's value must be a string or undefined`,
        )
      }
      variables[name] = value ?? undefined
      stability[name] = info.stability ?? 'session'
    }
  }
  const registered = [...(sectionByName ?? layers[0]!.sections).values()]
  const { sections, registrations } = sortedByOrder(
    registered,
    registered.map((s) => resolveSection(s, ctx)),
  )
  attachSlots(sections, registrations)
  const tools = collectTools(layers, ctx, inputs.toolOrder)
  // Without resolvers no namespaced key can get a value: no section's keys need reading. Each await
  // is skipped when there is nothing to wait for (an await costs a turn of the microtask queue).
  if (resolvers.size > 0) {
    const pending = resolveNamespaced(sections, resolvers, ctx, variables, stability)
    if (pending !== undefined) await pending
  }

  const assembly: PromptAssembly = { sections, tools, variables, stability }
  const canonicalSections = protectedSections === undefined ? undefined : cloneJson(sections)
  const canonicalTools = protectedTools === undefined ? undefined : cloneJson(tools)
  const result =
    inputs.middleware.length === 0 ? assembly : await runWaterfall(inputs.middleware, assembly, ctx)
  if (canonicalSections === undefined && canonicalTools === undefined) return result
  return {
    ...result,
    sections:
      canonicalSections === undefined
        ? result.sections
        : restoreProtected(canonicalSections, result.sections, protectedSections!),
    tools:
      canonicalTools === undefined
        ? result.tools
        : restoreProtected(canonicalTools, result.tools, protectedTools!),
  }
}
