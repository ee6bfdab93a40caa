import type { Disposer, PromptAssembly, PromptRegistrar, Stability } from '../registry/types.js'

/** One section a preset contributes: its final text, inserted literally. */
export interface PresetSection {
  name: string
  order: number
  stability: Stability
  /** The finished words; `''` drops the section from the rendered prompt. */
  text: string
}

/**
 * The registry variable that carries a preset section's text:
 * `layered:intent-gate` → `layered_intent_gate`.
 *
 * Why a variable: a registry section is a template, so `{{` in a tool
 * snippet, a memory note or a user's AGENTS.md would be read as a tag (and
 * fail strict rendering). A section whose template is exactly `{{name}}`
 * inserts the text as a value, and inserted values are never scanned again.
 */
export function sectionVariable(sectionName: string): string {
  return sectionName.toLowerCase().replace(/[^a-z0-9]+/g, '_')
}

/**
 * The variable of each section, in order: {@link sectionVariable}, with
 * `_2`, `_3`… appended when two names map to one variable
 * (`session:extra:a.b` and `session:extra:a-b`).
 */
function variablesOf(sections: readonly PresetSection[]): string[] {
  const taken = new Set<string>()
  return sections.map((section) => {
    const base = sectionVariable(section.name)
    let name = base
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`
    taken.add(name)
    return name
  })
}

/** The non-empty parts joined by one blank line. */
export function paragraphs(...parts: (string | undefined)[]): string {
  return parts
    .map((part) => part?.trim() ?? '')
    .filter((part) => part.length > 0)
    .join('\n\n')
}

/** `heading` over the non-empty parts, or `''` when every part is empty (so the section drops). */
export function headed(heading: string, ...parts: (string | undefined)[]): string {
  const body = paragraphs(...parts)
  return body.length === 0 ? '' : `${heading}\n\n${body}`
}

/**
 * Registers each section with the variable carrying its text, at the
 * section's stability, and returns one disposer for all of it. When a
 * registration fails (a duplicate name), what was already registered is
 * removed before the error propagates, so a failed preset leaves no residue.
 */
export function registerPresetSections(
  registry: PromptRegistrar,
  sections: readonly PresetSection[],
  preset: string,
): Disposer {
  const disposers: Disposer[] = []
  const disposeAll: Disposer = () => {
    for (const dispose of disposers.splice(0).reverse()) dispose()
  }
  const variables = variablesOf(sections)
  try {
    for (const [i, section] of sections.entries()) {
      const variable = variables[i]!
      const text = section.text
      disposers.push(
        registry.variable(variable, () => text, {
          stability: section.stability,
          description: `the text of section "${section.name}" (${preset})`,
        }),
      )
      disposers.push(
        registry.section({
          name: section.name,
          order: section.order,
          text: `{{${variable}}}`,
          dialect: 'mustache',
          stability: section.stability,
        }),
      )
    }
  } catch (error) {
    disposeAll()
    throw error
  }
  return disposeAll
}

/** A `PromptAssembly` of preset sections (and tools), built without a registry. */
export function assemblyOfSections(sections: readonly PresetSection[]): PromptAssembly {
  const assembly: PromptAssembly = { sections: [], tools: [], variables: {}, stability: {} }
  const variables = variablesOf(sections)
  const ordered = sections.map((section, i) => ({ section, variable: variables[i]! }))
  for (const { section, variable } of ordered.sort((a, b) => a.section.order - b.section.order)) {
    assembly.sections.push({
      name: section.name,
      order: section.order,
      text: `{{${variable}}}`,
      dialect: 'mustache',
      stability: section.stability,
    })
    assembly.variables[variable] = section.text
    assembly.stability[variable] = section.stability
  }
  return assembly
}
