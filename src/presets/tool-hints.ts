import { byCodeUnit } from '../registry/tool-order.js'

/** One sentence of guidance for one tool, from the harness's tool registry. */
export interface ToolPromptHint {
  tool: string
  hint: string
}

/** Tool names trimmed, without empties and duplicates, in code-unit order. */
export function sortedToolNames(names: readonly string[] | undefined): string[] {
  return [...new Set((names ?? []).map((name) => name.trim()).filter((name) => name.length > 0))].sort(
    byCodeUnit,
  )
}

/**
 * One hint per tool, sorted by tool name (code-unit order): the same hints
 * give the same bytes whatever order the registry produced them in, and
 * dropping a tool drops its hint. When a tool has several hints, the first in
 * code-unit order of the hint text is kept, so the choice does not depend on
 * input order either. `admitted`, when given, keeps only those tools' hints.
 */
export function sortedToolHints(
  hints: readonly ToolPromptHint[] | undefined,
  admitted?: ReadonlySet<string>,
): ToolPromptHint[] {
  const best = new Map<string, string>()
  for (const entry of hints ?? []) {
    const tool = entry.tool.trim()
    const hint = entry.hint.trim()
    if (tool.length === 0 || hint.length === 0) continue
    if (admitted !== undefined && !admitted.has(tool)) continue
    const kept = best.get(tool)
    if (kept === undefined || hint < kept) best.set(tool, hint)
  }
  return [...best.keys()].sort(byCodeUnit).map((tool) => ({ tool, hint: best.get(tool)! }))
}

/** The tools as one line of code spans: `` `a`, `b` ``. */
export function toolList(names: readonly string[]): string {
  return names.map((name) => `\`${name}\``).join(', ')
}
