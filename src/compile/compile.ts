import { SECTION_SEPARATOR } from '../registry/render-prompt.js'
import { slotAt, slotsOf } from '../registry/section-slot.js'
import type { AssembledSection, PromptAssembly, Stability } from '../registry/types.js'
import { type HashFunction, hashText, hashTextOnce, sha256Hex, utf8Length } from '../shared/hash.js'
import { TextCache } from '../shared/text-cache.js'
import { applyBudget } from './budget.js'
import { CompileError } from './errors.js'
import { contentEpoch, renderSection, type SectionMemo, sectionHash, sectionTokens } from './section-memo.js'
import { effectiveStabilityOf, stabilityOf } from './stability.js'
import { countTokens, resolveTokenizer, withCountCache } from './tokenizers.js'
import { hashTools } from './tool-hashes.js'
import type {
  BudgetCut,
  CompiledPrompt,
  CompiledSection,
  CompileOptions,
  CompileWarning,
  SectionFile,
  SectionInsertion,
  Tokenizer,
} from './types.js'

/** Where one section's text lies in the prompt, with its count and hash. */
interface Span {
  start: number
  end: number
  tokens: number
  hash: string
}

/** The joined prompt: what the section texts, the tokenizer and the hash function determine. */
interface Layout {
  text: string
  hash: string
  bytes: number
  tokens: number
  separatorTokens: number
  spans: Span[]
  /** `countTokens` of the whole text, once asked for. */
  exactTokens: number | undefined
}

// UTF-8 lengths of budget-cut texts (the shrink memo returns the same string
// objects for an unchanged assembly, so these are cheap lookups).
const cutBytes = new TextCache<number>(256)

function bytesOfCut(text: string): number {
  let n = cutBytes.get(text)
  if (n === undefined) {
    n = utf8Length(text)
    cutBytes.set(text, n)
  }
  return n
}

// The last few layouts, by the texts they joined: a recompile whose every
// section text is unchanged (the same string objects, mostly, so comparing
// them is cheap) reuses the text, its hash and the spans. This is the memo of
// whole-prompt hashes too: kept to a few entries because every new prompt
// would otherwise stay alive (30 KB each) long enough to be promoted, and
// the garbage collector's copying cost more than the memo saves.
const recentLayouts: {
  texts: readonly string[]
  tokenizer: Tokenizer
  hash: HashFunction
  layout: Layout
}[] = []

function recentLayout(
  texts: readonly string[],
  tokenizer: Tokenizer,
  hash: HashFunction,
): Layout | undefined {
  for (let r = recentLayouts.length - 1; r >= 0; r--) {
    const recent = recentLayouts[r]!
    if (recent.tokenizer !== tokenizer || recent.hash !== hash || recent.texts.length !== texts.length)
      continue
    let same = true
    for (let i = 0; i < texts.length && same; i++) same = recent.texts[i] === texts[i]
    if (same) return recent.layout
  }
  return undefined
}

/**
 * Joins the section texts (each its memo's text, or a budget cut of it) and
 * measures the result: spans, bytes, tokens as the sum of the section counts
 * (`counts`, or the memos' counts of uncut texts) and the separators', and
 * hashes.
 */
function layOut(
  memos: readonly SectionMemo[],
  texts: readonly string[],
  counts: readonly number[] | undefined,
  tokenizer: Tokenizer,
  hash: HashFunction,
): Layout {
  const found = recentLayout(texts, tokenizer, hash)
  if (found !== undefined) return found
  const tokensOf = counts ?? memos.map((memo) => sectionTokens(memo, tokenizer))
  const separatorTokens = countTokens(tokenizer, SECTION_SEPARATOR)
  const text = texts.join(SECTION_SEPARATOR)
  const spans: Span[] = []
  let offset = 0
  let tokens = 0
  let bytes = 0
  for (let i = 0; i < texts.length; i++) {
    const sectionText = texts[i]!
    const memo = memos[i]!
    if (i > 0) {
      offset += SECTION_SEPARATOR.length
      tokens += separatorTokens
      bytes += SECTION_SEPARATOR.length // ASCII: one byte per character
    }
    const start = offset
    offset += sectionText.length
    tokens += tokensOf[i]!
    const uncut = sectionText === memo.text
    bytes += uncut ? memo.bytes : bytesOfCut(sectionText)
    spans.push({
      start,
      end: offset,
      tokens: tokensOf[i]!,
      hash: uncut ? sectionHash(memo, hash) : hashText(sectionText, hash),
    })
  }
  const layout: Layout = {
    text,
    hash: hashTextOnce(text, hash),
    bytes,
    tokens,
    separatorTokens,
    spans,
    exactTokens: undefined,
  }
  if (recentLayouts.length >= 8) recentLayouts.shift()
  recentLayouts.push({ texts, tokenizer, hash, layout })
  return layout
}

function turnMessage(section: string, keys: readonly string[]): string {
  const cause =
    keys.length === 0
      ? `section "${section}" declares stability "turn"`
      : `section "${section}" references ${keys.map((k) => `"${k}"`).join(', ')}, whose value may change between turns`
  return (
    `${cause}: frozen into the system prompt it goes stale and breaks the provider's prompt cache when it changes;` +
    ' send the value in the environment-context message (environmentDelta) instead'
  )
}

/**
 * Compiles an assembly into the prompt a provider receives (SPEC §5): the
 * rendered text with its sha256, byte and token counts, one span per
 * non-empty section (string indices, so `text.slice(start, end)` is the
 * section), the tools with their hashes, and the stable prefixes a provider
 * can cache. Each section is rendered, counted and hashed alone, memoized,
 * so recompiling after one section changed tokenizes only that section and
 * recompiling an unchanged assembly costs a lookup per section and tool (the
 * joined text and its hash are reused while every section text is the
 * same); `tokens` is the sum of the section counts and the separators'
 * (`exactTokens: true` also counts the whole text). A section whose effective stability is `turn` is a warning,
 * or a `CompileError` with `volatile: 'error'`; a `budget` cuts sections by
 * priority (see `applyBudget`), measured against `tokens` (not `exactTokens`),
 * and the result describes the cut text.
 */
export function compile(assembly: PromptAssembly, options: CompileOptions = {}): CompiledPrompt {
  const tokenizer = withCountCache(resolveTokenizer(options.tokenizer), options.countCache)
  const volatile = options.volatile ?? 'warn'
  if (volatile !== 'warn' && volatile !== 'error') {
    throw new TypeError(`compile: volatile must be "warn" or "error", got ${JSON.stringify(volatile)}`)
  }
  // The non-empty sections and their memos, in parallel arrays (no pair object per section).
  const keptSections: AssembledSection[] = []
  const memos: SectionMemo[] = []
  const slots = slotsOf(assembly.sections)
  const epoch = contentEpoch(assembly)
  for (let i = 0; i < assembly.sections.length; i++) {
    const section = assembly.sections[i]!
    const memo = renderSection(section, assembly, slotAt(slots, assembly.sections, i), epoch)
    if (memo.text.length > 0) {
      keptSections.push(section)
      memos.push(memo)
    }
  }

  const warnings: CompileWarning[] = []
  const stabilities: Stability[] = []
  for (let i = 0; i < keptSections.length; i++) {
    const section = keptSections[i]!
    const memo = memos[i]!
    // The effective stability reads only the memo's keys in the assembly: known for this epoch.
    let stability = memo.effective
    if (memo.stabilityIn !== epoch || memo.declared !== section.stability) {
      stability = effectiveStabilityOf(section.stability, memo.keys, assembly)
      memo.stabilityIn = memo.validIn === epoch ? epoch : 0
      memo.declared = section.stability
      memo.effective = stability
    }
    stabilities.push(stability)
    if (stability !== 'turn') continue
    const { turnKeys } = stabilityOf(section.stability, memos[i]!.keys, assembly)
    const message = turnMessage(section.name, turnKeys)
    if (volatile === 'error') {
      throw new CompileError('turn-in-system-prompt', `${message}, or compile with volatile: "warn"`, {
        section: section.name,
      })
    }
    warnings.push({ code: 'turn-in-system-prompt', section: section.name, message })
  }

  const hash = options.hash ?? sha256Hex
  let layout: Layout
  let cuts: BudgetCut[] = []
  let laidOut: readonly string[] = memos.map((memo) => memo.text)
  if (options.budget === undefined) {
    layout = layOut(memos, laidOut, undefined, tokenizer, hash)
  } else {
    const counts = memos.map((memo) => sectionTokens(memo, tokenizer))
    const budgeted = applyBudget(
      memos.map((memo, i) => ({
        name: keptSections[i]!.name,
        text: memo.text,
        tokens: counts[i]!,
        ...(keptSections[i]!.priority === undefined ? {} : { priority: keptSections[i]!.priority }),
      })),
      options.budget.maxTokens,
      tokenizer,
      countTokens(tokenizer, SECTION_SEPARATOR),
    )
    laidOut = budgeted.texts
    layout = layOut(memos, laidOut, budgeted.tokens, tokenizer, hash)
    cuts = budgeted.cuts
    warnings.push(...budgeted.warnings)
  }

  const sections: CompiledSection[] = []
  for (let i = 0; i < keptSections.length; i++) {
    const section = keptSections[i]!
    const memo = memos[i]!
    const span = layout.spans[i]!
    const laid = laidOut[i]!
    sections.push(
      compiledSection(section, stabilities[i]!, span, memo, laid === memo.text ? undefined : laid),
    )
  }
  let exactTokens: number | undefined
  if (options.exactTokens === true) {
    exactTokens = layout.exactTokens ??= countTokens(tokenizer, layout.text)
  }
  const { tools, toolsHash } = hashTools(assembly.tools, hash)
  const { separatorTokens } = layout

  return {
    text: layout.text,
    hash: layout.hash,
    bytes: layout.bytes,
    tokens: layout.tokens,
    ...(exactTokens === undefined ? {} : { exactTokens }),
    tokenizer: tokenizer.name,
    sections,
    tools,
    toolsHash,
    manifest: options.manifest === undefined ? [] : [...options.manifest],
    stablePrefix: {
      static: stablePrefix(sections, separatorTokens, (s) => s === 'static'),
      session: stablePrefix(sections, separatorTokens, (s) => s !== 'turn'),
    },
    warnings,
    cuts,
  }
}

/**
 * One section of the compiled prompt, with its insertions moved into prompt
 * indices and the `file:<path>` ones listed as files. A budget-cut section
 * keeps only the insertions that lie wholly in the part the cut left
 * unchanged. Each shape is built as one literal with its keys in the one
 * order (a spread copy and added keys would make objects that every later
 * reader of the sections pays for).
 */
function compiledSection(
  section: AssembledSection,
  stability: Stability,
  span: Span,
  memo: SectionMemo,
  cut: string | undefined,
): CompiledSection {
  const { name, order } = section
  const { start, end, tokens, hash } = span
  if (memo.insertions.length === 0) return { name, order, stability, start, end, tokens, hash }
  let whole = memo.text.length
  if (cut !== undefined) {
    whole = 0
    while (whole < cut.length && cut.charCodeAt(whole) === memo.text.charCodeAt(whole)) whole++
  }
  const insertions: SectionInsertion[] = []
  let fileCount = 0
  for (const ins of memo.insertions) {
    if (ins.end > whole) continue
    insertions.push({ key: ins.key, start: start + ins.start, end: start + ins.end })
    if (ins.key.startsWith('file:')) fileCount++
  }
  if (insertions.length === 0) return { name, order, stability, start, end, tokens, hash }
  if (fileCount === 0) return { name, order, stability, start, end, tokens, hash, insertions }
  const files: SectionFile[] = []
  for (const ins of insertions) {
    if (ins.key.startsWith('file:')) {
      files.push({ path: ins.key.slice('file:'.length), start: ins.start, end: ins.end, key: ins.key })
    }
  }
  return { name, order, stability, start, end, tokens, hash, insertions, files }
}

/** The span of the leading sections whose stability passes `keep`: its end index and tokens with separators. */
function stablePrefix(
  sections: readonly CompiledSection[],
  separatorTokens: number,
  keep: (stability: Stability) => boolean,
): { end: number; tokens: number } {
  let end = 0
  let tokens = 0
  for (let i = 0; i < sections.length; i++) {
    const section = sections[i]!
    if (!keep(section.stability)) break
    end = section.end
    tokens += section.tokens + (i > 0 ? separatorTokens : 0)
  }
  return { end, tokens }
}
