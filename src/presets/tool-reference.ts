import { byCodeUnit } from '../registry/tool-order.js'
import { PresetError } from './errors.js'
import { headed } from './sections.js'
import type { PresetWords } from './words.js'

/** The tool categories of the layered preset, in the fixed order the reference lists them. */
export const TOOL_CATEGORIES = ['search', 'session', 'command', 'other'] as const

/** A tool's category in the layered tool reference. */
export type ToolCategory = (typeof TOOL_CATEGORIES)[number]

/** The fixed heading of each category in the tool reference. */
export const TOOL_CATEGORY_LABELS: Readonly<Record<ToolCategory, string>> = Object.freeze({
  search: 'Finding and reading',
  session: 'Planning and the session',
  command: 'Running commands',
  other: 'Other tools',
})

/**
 * A tool as the layered preset describes it (SPEC §7): its name, its
 * category (default `other`), a one-line `snippet` saying what it is for and
 * `guidelines` on when and how to use it, listed in the order given.
 */
export interface PresetTool {
  name: string
  category?: ToolCategory
  snippet?: string
  guidelines?: string[]
}

function checkTools(tools: readonly PresetTool[]): void {
  const seen = new Set<string>()
  for (const tool of tools) {
    const name = typeof tool?.name === 'string' ? tool.name.trim() : ''
    if (name.length === 0) {
      throw new PresetError('invalid-option', 'layeredPreset: every tool needs a non-empty `name`')
    }
    if (tool.category !== undefined && !TOOL_CATEGORIES.includes(tool.category)) {
      throw new PresetError(
        'invalid-option',
        `layeredPreset: tool "${name}" has category ${JSON.stringify(tool.category)}; use one of ${TOOL_CATEGORIES.join(', ')}`,
      )
    }
    if (seen.has(name)) {
      throw new PresetError('duplicate-tool', `layeredPreset: tool "${name}" is listed twice; list it once`)
    }
    seen.add(name)
  }
}

/** One tool's entry: a list item with its snippet, and its guidelines nested under it. */
function toolEntry(tool: PresetTool): string {
  const snippet = tool.snippet?.trim() ?? ''
  const lines = [`- \`${tool.name.trim()}\`${snippet.length > 0 ? `: ${snippet}` : ''}`]
  for (const guideline of tool.guidelines ?? []) {
    const text = guideline.trim()
    if (text.length > 0) lines.push(`  - ${text}`)
  }
  return lines.join('\n')
}

/**
 * The layered preset's tool reference: the preset words, then one block per
 * non-empty category in the fixed order search, session, command, other,
 * headed by its fixed label, with the tools sorted by name (code-unit order)
 * so the same tools always give the same bytes. Without tools, the words
 * saying that none are available.
 */
export function renderToolReference(tools: readonly PresetTool[], words: PresetWords): string {
  checkTools(tools)
  if (tools.length === 0) return headed('# Tools', words.text('layered.no-tools'))
  const blocks = TOOL_CATEGORIES.map((category) => {
    const members = tools
      .filter((tool) => (tool.category ?? 'other') === category)
      .sort((a, b) => byCodeUnit(a.name.trim(), b.name.trim()))
    if (members.length === 0) return ''
    return `## ${TOOL_CATEGORY_LABELS[category]}\n\n${members.map(toolEntry).join('\n')}`
  })
  return headed('# Tools', words.text('layered.tool-reference'), ...blocks)
}
