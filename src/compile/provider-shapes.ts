import { cloneJson } from '../registry/clone-json.js'
import { ANTHROPIC_MAX_BREAKPOINTS, planCache } from './plan-cache.js'
import type { CompiledPrompt, CompiledTool } from './types.js'

/** One Anthropic system text block. */
export interface AnthropicTextBlock {
  type: 'text'
  text: string
  cache_control?: { type: 'ephemeral' }
}

/** One Anthropic tool definition. */
export interface AnthropicTool {
  name: string
  description?: string
  input_schema: Record<string, unknown>
}

/** The `system` and `tools` fields of an Anthropic Messages request. */
export interface AnthropicShape {
  system: AnthropicTextBlock[]
  /** Absent when the prompt has no tools. */
  tools?: AnthropicTool[]
}

/** One OpenAI function tool. */
export interface OpenAITool {
  type: 'function'
  function: { name: string; description?: string; parameters: Record<string, unknown> }
}

/** The instruction message and `tools` field of an OpenAI Chat Completions request. */
export interface OpenAIShape {
  message: { role: 'system' | 'developer'; content: string }
  /** Absent when the prompt has no tools (OpenAI rejects an empty `tools` array). */
  tools?: OpenAITool[]
}

/** One Gemini function declaration. */
export interface GeminiFunctionDeclaration {
  name: string
  description?: string
  /** Full JSON Schema; Gemini's `parameters` field takes only an OpenAPI subset. */
  parametersJsonSchema: Record<string, unknown>
}

/** The `systemInstruction` and `tools` fields of a Gemini `generateContent` request. */
export interface GeminiShape {
  systemInstruction: { parts: [{ text: string }] }
  /** Absent when the prompt has no tools. */
  tools?: [{ functionDeclarations: GeminiFunctionDeclaration[] }]
}

/**
 * Where each block starts and ends: one block per section, each separator
 * kept at the end of the block before it, the first block from 0 and the last
 * to the end of the text, so the blocks concatenate to `text` exactly.
 */
function blockSpans(compiled: CompiledPrompt): { start: number; end: number; sectionEnd: number }[] {
  const { sections, text } = compiled
  if (text.length === 0) return []
  if (sections.length === 0) return [{ start: 0, end: text.length, sectionEnd: text.length }]
  return sections.map((s, i) => ({
    start: i === 0 ? 0 : s.start,
    end: sections[i + 1]?.start ?? text.length,
    sectionEnd: s.end,
  }))
}

/** Options of `toAnthropic`: explicit breakpoints, or the model (and harness share) the planned ones are judged for. */
export interface AnthropicOptions {
  /** Positions (at most 4), or how many of the planned marks to keep. */
  breakpoints?: number[] | number
  /** The model the request goes to: selects the minimum a marked prefix must reach (default: Anthropic's largest). */
  model?: string
  /** Forces the minimum cacheable prefix, in tokens. */
  minTokens?: number
  /** Tokens the harness sends before the system prompt (base prompt, tools); they count towards the minimum. */
  baseTokens?: number
}

function chooseBreakpoints(compiled: CompiledPrompt, options: AnthropicOptions): Set<number> {
  const asked = options.breakpoints
  if (Array.isArray(asked)) {
    if (asked.length > ANTHROPIC_MAX_BREAKPOINTS) {
      throw new RangeError(
        `toAnthropic: ${asked.length} breakpoints asked, Anthropic accepts at most ${ANTHROPIC_MAX_BREAKPOINTS}`,
      )
    }
    return new Set(asked)
  }
  // Only prefixes that reach the model's minimum are marked: a mark on a shorter one caches nothing.
  const planned = planCache(compiled, {
    provider: 'anthropic',
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.minTokens === undefined ? {} : { minTokens: options.minTokens }),
    ...(options.baseTokens === undefined ? {} : { baseTokens: options.baseTokens }),
  }).marks
  const limit = Math.min(asked ?? ANTHROPIC_MAX_BREAKPOINTS, ANTHROPIC_MAX_BREAKPOINTS)
  return new Set(planned.slice(0, Math.max(0, limit)))
}

function cloneSchema(tool: CompiledTool): Record<string, unknown> {
  // The compiled prompt may be stored and reused; a request that mutates its
  // tool schemas must not reach back into it.
  return cloneJson(tool.schema.parameters)
}

/** `{ name, description? }`: the key is left out, not set to undefined, when the tool has no description. */
function named(tool: CompiledTool): { name: string; description?: string } {
  const { description } = tool.schema
  return description === undefined ? { name: tool.name } : { name: tool.name, description }
}

/**
 * The Anthropic Messages `system` and `tools` fields (SPEC §5). `system`
 * holds one text block per section, each separator at the end of the block
 * before it, so the blocks' texts concatenate to `text`; an empty prompt
 * gives no blocks (Anthropic rejects empty text blocks). `cache_control`
 * marks the blocks whose section ends at a breakpoint: by default those
 * `planCache` plans for Anthropic whose prefix reaches the minimum of
 * `model` (Anthropic's largest when none is named), so a prefix too short to
 * be cached carries no mark; a number keeps that many of them (at most
 * 4); an array gives the positions (section ends or block ends, at most 4).
 * `tools` keeps the compiled order and is omitted when there are none.
 */
export function toAnthropic(compiled: CompiledPrompt, options: AnthropicOptions = {}): AnthropicShape {
  const marks = chooseBreakpoints(compiled, options)
  const spans = blockSpans(compiled)
  const used = new Set<number>()
  const system = spans.map((span): AnthropicTextBlock => {
    const block: AnthropicTextBlock = { type: 'text', text: compiled.text.slice(span.start, span.end) }
    for (const at of [span.sectionEnd, span.end]) {
      if (marks.has(at)) {
        block.cache_control = { type: 'ephemeral' }
        used.add(at)
      }
    }
    return block
  })
  const stray = [...marks].filter((at) => !used.has(at))
  if (stray.length > 0) {
    const valid = spans.map((s) => s.sectionEnd).join(', ')
    throw new RangeError(
      `toAnthropic: breakpoint${stray.length > 1 ? 's' : ''} ${stray.join(', ')} not at a section end; valid positions: ${valid || 'none (empty prompt)'}`,
    )
  }
  const shape: AnthropicShape = { system }
  if (compiled.tools.length > 0) {
    shape.tools = compiled.tools.map((tool) => ({ ...named(tool), input_schema: cloneSchema(tool) }))
  }
  return shape
}

/**
 * The OpenAI instruction message and `tools` field (SPEC §5): the whole text
 * as one `system` message (or `developer`, for the models that take that
 * role). OpenAI caches implicitly, so no marks are needed. An empty prompt
 * still gives a message with empty content; send none then. `tools` keeps the
 * compiled order and is omitted when there are none.
 */
export function toOpenAI(
  compiled: CompiledPrompt,
  options: { role?: 'system' | 'developer' } = {},
): OpenAIShape {
  const shape: OpenAIShape = { message: { role: options.role ?? 'system', content: compiled.text } }
  if (compiled.tools.length > 0) {
    shape.tools = compiled.tools.map((tool) => ({
      type: 'function',
      function: { ...named(tool), parameters: cloneSchema(tool) },
    }))
  }
  return shape
}

/**
 * The Gemini `systemInstruction` and `tools` fields (SPEC §5): the whole text
 * as one part. Parameters go in `parametersJsonSchema`, which takes the JSON
 * Schema tools are written in (`parameters` takes only an OpenAPI subset).
 * `tools` holds one entry with every declaration in compiled order and is
 * omitted when there are none (an empty declaration list is rejected).
 */
export function toGemini(compiled: CompiledPrompt): GeminiShape {
  const shape: GeminiShape = { systemInstruction: { parts: [{ text: compiled.text }] } }
  if (compiled.tools.length > 0) {
    shape.tools = [
      {
        functionDeclarations: compiled.tools.map((tool) => ({
          ...named(tool),
          parametersJsonSchema: cloneSchema(tool),
        })),
      },
    ]
  }
  return shape
}
