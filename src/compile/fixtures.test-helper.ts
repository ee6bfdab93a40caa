import type { PromptAssembly, Stability, ToolSchema } from '../registry/types.js'
import { compile } from './compile.js'
import type { CompiledPrompt, CompileOptions } from './types.js'

/** One section of a test prompt; the text is rendered as a mustache template with no variables. */
export interface FixtureSection {
  name: string
  text: string
  stability?: Stability
  order?: number
}

/** A PromptAssembly literal from section texts (orders default to 10, 20, …). */
export function assemblyOf(sections: FixtureSection[], tools: ToolSchema[] = []): PromptAssembly {
  return {
    sections: sections.map((s, i) => ({
      name: s.name,
      order: s.order ?? (i + 1) * 10,
      text: s.text,
      dialect: 'mustache',
      stability: s.stability ?? 'static',
    })),
    tools,
    variables: {},
    stability: {},
  }
}

/**
 * The real `compile` of a few sections, with the fast `estimate` tokenizer
 * unless asked otherwise, for tests of the layers that read compiled prompts
 * (diff, cache planning, provider shapes, lock files).
 */
export function promptOf(
  sections: FixtureSection[],
  options: { tools?: ToolSchema[] } & CompileOptions = {},
): CompiledPrompt {
  const { tools, ...compileOptions } = options
  return compile(assemblyOf(sections, tools), { tokenizer: 'estimate', ...compileOptions })
}

/** A section text of exactly `tokens` estimate-tokens (`abc ` repeated, trailing space trimmed). */
export function filler(tokens: number, word = 'abc '): string {
  return word.repeat(tokens).trimEnd()
}
