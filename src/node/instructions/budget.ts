import { groupDigits } from '../../compile/numbers.js'
import { utf8Length } from '../../shared/hash.js'

/** The default byte cap, as Codex's `project_doc_max_bytes`. */
export const DEFAULT_MAX_BYTES = 32 * 1024

/**
 * The expansion budget's defaults, per mode's discovery: distinct files
 * loaded (instruction files, imports, rule bodies) and bytes of expanded
 * text (a file inlined twice counts twice). Far above any real project,
 * low enough that a repository of files importing each other cannot hang
 * discovery or exhaust memory.
 */
export const DEFAULT_MAX_EXPANDED_FILES = 200
export const DEFAULT_MAX_EXPANDED_BYTES = 4 * 1024 * 1024

/** One text under a budget: how near cwd it sits (0 = in cwd) and its place in load order. */
export interface BudgetItem {
  text: string
  distance: number
}

/** What the budget kept of one text. */
export interface BudgetCut {
  kept: string
  /** Bytes cut from the end (0 when the text was kept whole). */
  omitted: number
}

/**
 * The longest prefix of `text` that ends at a line break and fits in
 * `maxBytes` UTF-8 bytes (empty when not even the first line fits), so a
 * cut never leaves half a sentence or half a character.
 */
export function cutAtLine(text: string, maxBytes: number): string {
  let bytes = 0
  let end = 0
  while (end < text.length) {
    const newline = text.indexOf('\n', end)
    const lineEnd = newline === -1 ? text.length : newline + 1
    const size = utf8Length(text.slice(end, lineEnd))
    if (bytes + size > maxBytes) break
    bytes += size
    end = lineEnd
  }
  return text.slice(0, end)
}

/**
 * The nearest-first budget (SPEC §6): the text nearest cwd is kept whole
 * first, then its parents, the global file last; the first text that does
 * not fit is cut at a line boundary and everything farther is cut entirely,
 * so a far file never wins bytes a nearer one lost. Results are in the order
 * of `items`; ties in distance go to the later item (the more specific one).
 */
export function nearestFirst(items: readonly BudgetItem[], maxBytes: number): BudgetCut[] {
  const order = items.map((item, index) => ({ item, index }))
  order.sort((a, b) => a.item.distance - b.item.distance || b.index - a.index)
  const cuts: BudgetCut[] = items.map((item) => ({ kept: item.text, omitted: 0 }))
  let remaining = Math.max(0, maxBytes)
  for (const { item, index } of order) {
    const size = utf8Length(item.text)
    if (size <= remaining) {
      remaining -= size
      continue
    }
    const kept = cutAtLine(item.text, remaining)
    cuts[index] = { kept, omitted: size - utf8Length(kept) }
    remaining = 0
  }
  return cuts
}

/**
 * Codex's cap, reproduced: texts in load order (root first) each take what
 * is left of `maxBytes`, cut at a byte (never inside a character) with no
 * notice; once nothing is left the rest are dropped (`null`). A text that is
 * blank after its cut is dropped too and costs nothing, as Codex skips empty
 * parts.
 */
export function rootFirstSilent(texts: readonly string[], maxBytes: number): (BudgetCut | null)[] {
  let remaining = Math.max(0, maxBytes)
  return texts.map((text) => {
    if (remaining === 0) return null
    const kept = cutAtByte(text, remaining)
    if (kept.trim().length === 0) return null
    const size = utf8Length(kept)
    remaining -= size
    return { kept, omitted: utf8Length(text) - size }
  })
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes. */
function cutAtByte(text: string, maxBytes: number): string {
  let bytes = 0
  let i = 0
  while (i < text.length) {
    const code = text.codePointAt(i)!
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    if (bytes + size > maxBytes) break
    bytes += size
    i += code >= 0x10000 ? 2 : 1
  }
  return text.slice(0, i)
}

export { groupDigits } from '../../compile/numbers.js'

/** The visible notice that replaces what a budget cut: `[… 2 118 bytes of docs/AGENTS.md omitted …]`. */
export function omissionNotice(omitted: number, shown: string): string {
  return `[… ${groupDigits(omitted)} bytes of ${shown} omitted …]`
}
