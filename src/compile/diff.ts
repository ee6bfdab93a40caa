import type { CompiledPrompt, CompiledSection, PromptDiff } from './types.js'

/**
 * Tokens of the first `count` sections of a compiled prompt plus the
 * separators between them: the size of a prefix ending at a section end.
 * `compile` counts every separator alike and adds them into `tokens`, so one
 * separator's share is read back from the totals; that keeps this right for
 * any tokenizer, including one passed as an object.
 */
export function prefixTokens(compiled: CompiledPrompt, count: number): number {
  const { sections } = compiled
  const n = Math.min(count, sections.length)
  if (n <= 0) return 0
  let sum = 0
  let all = 0
  for (const [i, s] of sections.entries()) {
    all += s.tokens
    if (i < n) sum += s.tokens
  }
  const perSeparator = sections.length > 1 ? Math.max(0, compiled.tokens - all) / (sections.length - 1) : 0
  return sum + Math.round(perSeparator * (n - 1))
}

/**
 * The index of the section of `sections` that the string index `at` belongs
 * to: the one whose span holds it, or, inside a separator, the one after it.
 * `-1` when nothing of the text is there (past the end).
 */
export function sectionAt(sections: readonly CompiledSection[], at: number): number {
  for (const [i, s] of sections.entries()) {
    if (at < s.end) return i
  }
  return -1
}

function firstDifference(a: string, b: string): number | null {
  if (a === b) return null
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return i
  }
  return n
}

/**
 * What changed between two compiled prompts, from a provider cache's point
 * of view (SPEC §5). `firstDifference` is the string index where the texts
 * first differ; `section` names the section of `b` holding it (a difference
 * inside a separator belongs to the next section; `null` when `b` ends there,
 * i.e. `b` is a prefix of `a`). `commonPrefixTokens` counts the leading
 * sections of `b` that end before the difference and that `a` holds with the
 * same span, plus the separators between them: the part a provider can still
 * serve from cache. `added` and `changed` (same name,
 * another hash) follow `b`'s order, `removed` follows `a`'s. `identical`
 * compares the texts only; tools are compared by `checkLock`.
 */
export function diffCompiled(a: CompiledPrompt, b: CompiledPrompt): PromptDiff {
  const at = firstDifference(a.text, b.text)
  const before = new Map(a.sections.map((s) => [s.name, s]))
  const after = new Set(b.sections.map((s) => s.name))
  const added: string[] = []
  const changed: string[] = []
  for (const s of b.sections) {
    const old = before.get(s.name)
    if (old === undefined) added.push(s.name)
    else if (old.hash !== s.hash) changed.push(s.name)
  }
  const removed = a.sections.filter((s) => !after.has(s.name)).map((s) => s.name)

  if (at === null) {
    return {
      identical: true,
      firstDifference: null,
      section: null,
      commonPrefixTokens: b.tokens,
      added,
      removed,
      changed,
    }
  }
  const index = sectionAt(b.sections, at)
  // A section counts only when `a` has it whole too, with the same span: a
  // provider caches up to block (or token) boundaries, so a section of `b`
  // that `a` continues past the difference is not served from cache.
  let whole = 0
  for (const s of b.sections) {
    const same = a.sections[whole]
    if (s.end > at || same === undefined || same.start !== s.start || same.end !== s.end) break
    whole++
  }
  return {
    identical: false,
    firstDifference: at,
    section: index === -1 ? null : b.sections[index]!.name,
    commonPrefixTokens: prefixTokens(b, whole),
    added,
    removed,
    changed,
  }
}
