import { TextCache } from '../shared/text-cache.js'
import { CompileError } from './errors.js'
import { countTokens } from './tokenizers.js'
import type { BudgetCut, CompileWarning, Tokenizer } from './types.js'

/** One rendered section as the budget sees it. */
export interface BudgetSection {
  name: string
  text: string
  /** `countTokens` of `text`. */
  tokens: number
  /** Lower priorities are cut first; without one the section is never cut. */
  priority?: number
}

/** The sections after the budget, in their original order, with what was cut. */
export interface BudgetResult {
  texts: string[]
  tokens: number[]
  /** In the order the cuts were made. */
  cuts: BudgetCut[]
  warnings: CompileWarning[]
}

/**
 * The line a cut leaves in place of what it removed. `removedChars` counts
 * Unicode code points (what a reader calls characters) and is written in
 * plain digits, never locale-formatted, so the bytes are the same everywhere.
 */
export function budgetMarker(section: string, removedChars: number): string {
  return `[… ${section}: ${String(removedChars)} characters omitted to fit the token budget …]`
}

/** Code points of `text`: a surrogate pair is one character. */
function codePoints(text: string): number {
  let n = text.length
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

interface Shrunk {
  text: string
  tokens: number
  removedChars: number
  dropped: boolean
}

/** What shrinking one section can do for a given allowance. */
interface Shrink {
  /** The longest cut that fits the allowance; `null` when not even the marker alone does. */
  fit: Shrunk | null
  /** The section reduced to its marker: its cheapest form, unless the marker costs more than the text. */
  marker: Shrunk
}

// Shrinks by tokenizer, section text, then `allowance:name`: an unchanged
// over-budget assembly recompiles with lookups, not tokenizer runs.
const shrinkMemo = new WeakMap<Tokenizer, TextCache<Map<string, Shrink>>>()

/**
 * The longest cut of `text` that fits `allowance` tokens: its first k whole
 * lines followed by the marker line (k = 0 leaves the marker alone). Lines
 * are found once; a binary search over k costs O(log lines) counts. Token
 * counts are nearly monotonic in k; where BPE merges make them not, the
 * search may settle on a shorter cut, but whatever it returns fits.
 */
function shrink(name: string, text: string, allowance: number, tokenizer: Tokenizer): Shrink {
  let byText = shrinkMemo.get(tokenizer)
  if (byText === undefined) {
    byText = new TextCache(256)
    shrinkMemo.set(tokenizer, byText)
  }
  let byAllowance = byText.get(text)
  if (byAllowance === undefined) {
    byAllowance = new Map()
    byText.set(text, byAllowance)
  }
  const memoKey = `${allowance}:${name}`
  const memo = byAllowance.get(memoKey)
  if (memo !== undefined) return memo

  const newlines: number[] = []
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines.push(i)
  const totalChars = codePoints(text)
  const markerText = budgetMarker(name, totalChars)
  // Markers are short and recur, so they go through the shared count memo.
  const marker = {
    text: markerText,
    tokens: countTokens(tokenizer, markerText),
    removedChars: totalChars,
    dropped: true,
  }
  const candidate = (kept: number): Shrunk => {
    if (kept === 0) return marker
    const end = newlines[kept - 1]!
    const removedChars = codePoints(text.slice(end + 1))
    const cut = `${text.slice(0, end + 1)}${budgetMarker(name, removedChars)}`
    // A one-off text: counted directly so it does not evict useful entries.
    return { text: cut, tokens: tokenizer.count(cut), removedChars, dropped: false }
  }

  let fit: Shrunk | null = null
  let lo = 0
  let hi = newlines.length // keeping every line is no cut; at most all but the last
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const found = candidate(mid)
    if (found.tokens <= allowance) {
      fit = found
      lo = mid + 1
    } else hi = mid - 1
  }
  const result = { fit, marker }
  // A handful of budgets per text is the normal case; a sweep over many must not grow without bound.
  if (byAllowance.size >= 16) byAllowance.clear()
  byAllowance.set(memoKey, result)
  return result
}

/**
 * Fits sections into `maxTokens` (SPEC §5 "Budgets"). The total is the sum of
 * the section counts plus `separatorTokens` between each two. When over,
 * sections with a priority are cut in ascending priority, the later section
 * first on a tie (so the cached prefix moves last), each shrunk by whole
 * lines from its end to just what the remaining excess allows, or reduced to
 * its marker when no line fits. A section whose marker would cost as much as
 * its text is left alone. Throws `budget-impossible` when even every
 * cuttable section at its cheapest leaves the total over the budget (in
 * particular when the sections without a priority alone exceed it).
 */
export function applyBudget(
  sections: readonly BudgetSection[],
  maxTokens: number,
  tokenizer: Tokenizer,
  separatorTokens: number,
): BudgetResult {
  if (typeof maxTokens !== 'number' || Number.isNaN(maxTokens) || maxTokens < 0) {
    throw new TypeError(`budget.maxTokens must be a number >= 0, got ${String(maxTokens)}`)
  }
  const texts = sections.map((s) => s.text)
  const tokens = sections.map((s) => s.tokens)
  const cuts: BudgetCut[] = []
  const warnings: CompileWarning[] = []
  const separators = Math.max(0, sections.length - 1) * separatorTokens
  let total = separators
  for (const n of tokens) total += n
  if (total <= maxTokens) return { texts, tokens, cuts, warnings }

  const order = sections
    .map((s, index) => ({ index, priority: s.priority }))
    .filter((s): s is { index: number; priority: number } => s.priority !== undefined)
    .sort((a, b) => a.priority - b.priority || b.index - a.index)
  for (const { index } of order) {
    if (total <= maxTokens) break
    const section = sections[index]!
    const before = tokens[index]!
    const allowance = before - (total - maxTokens)
    const { fit, marker } = shrink(section.name, section.text, allowance, tokenizer)
    // Nothing fits this section's allowance: its marker alone, if that saves anything.
    const result = fit ?? (marker.tokens < before ? marker : null)
    if (result === null) continue
    texts[index] = result.text
    tokens[index] = result.tokens
    total += result.tokens - before
    cuts.push({ section: section.name, removedChars: result.removedChars, dropped: result.dropped })
    warnings.push({
      code: 'budget-cut',
      section: section.name,
      message: result.dropped
        ? `section "${section.name}" (priority ${section.priority}) was reduced to its marker to fit the budget of ${maxTokens} tokens`
        : `section "${section.name}" (priority ${section.priority}) lost ${result.removedChars} characters from its end to fit the budget of ${maxTokens} tokens`,
    })
  }
  // Every cuttable section is now at its cheapest (a cut that fits would have
  // ended the loop), so still over means no cut can meet the budget.
  if (total > maxTokens) throw impossible(sections, tokens, maxTokens, separators)
  return { texts, tokens, cuts, warnings }
}

function impossible(
  sections: readonly BudgetSection[],
  cheapest: readonly number[],
  maxTokens: number,
  separators: number,
): CompileError {
  const fixed = sections.filter((s) => s.priority === undefined)
  const uncuttable = fixed.reduce((sum, s) => sum + s.tokens, 0)
  const rest = cheapest.reduce((sum, n) => sum + n, separators) - uncuttable
  const names = fixed.map((s) => `"${s.name}" (${s.tokens})`).join(', ') || 'none'
  return new CompileError(
    'budget-impossible',
    `the token budget of ${maxTokens} cannot be met: the sections without a priority need ${uncuttable} tokens` +
      ` (${names}) and the cut sections, markers and separators at least ${rest} more;` +
      ' raise budget.maxTokens or give more sections a priority so they can be cut',
  )
}
