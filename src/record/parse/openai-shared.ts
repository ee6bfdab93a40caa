/*
 * What the two OpenAI APIs share. OpenAI caches automatically on the exact
 * prefix, tools included, and does not document the order it renders a
 * request in; its published rendering (the harmony format of its
 * open-weight models) puts the instructions first, then the tool
 * definitions, then the conversation, and that is the cache order used
 * here. Usage counts cached tokens inside the input tokens.
 */
import type { RecordedUsage } from '../../compile/call-record.js'
import { isObject, numberAt } from './shared.js'

/** OpenAI usage in `RecordedUsage` terms: `input` and `output` by their names in each API, the cached tokens from `details`. */
export function openaiUsage(
  usage: unknown,
  input: string,
  output: string,
  details: string,
): RecordedUsage | undefined {
  if (!isObject(usage)) return undefined
  return {
    inputTokens: numberAt(usage, input),
    cacheReadTokens: numberAt(usage[details], 'cached_tokens'),
    cacheWriteTokens: 0,
    outputTokens: numberAt(usage, output),
  }
}

/** A role whose message is part of the instructions when it leads the conversation. */
export function isInstructionRole(role: unknown): boolean {
  return role === 'system' || role === 'developer'
}

/** The name of a tool: a function's `name` (top level in Responses, under `function` in Chat), else its `type`. */
export function toolName(tool: Record<string, unknown>): string | undefined {
  if (typeof tool.name === 'string') return tool.name
  if (isObject(tool.function) && typeof tool.function.name === 'string') return tool.function.name
  return typeof tool.type === 'string' ? tool.type : undefined
}
