import { renderSections, SECTION_SEPARATOR } from '../registry/render-prompt.js'
import type { AssembledSection, PromptAssembly, Stability, ToolSchema } from '../registry/types.js'
import { compileTemplate } from '../template/index.js'
import { TextCache } from '../template/text-cache.js'
import { applyBudget } from './budget.js'
import { CompileError } from './errors.js'
import { canonicalJson, type HashFunction, hashText, sha256Hex, utf8Length } from './hash.js'
import { stabilityOf } from './stability.js'
import { countTokens, resolveTokenizer } from './tokenizers.js'
import type {
  BudgetCut,
  CompiledPrompt,
  CompiledSection,
  CompiledTool,
  CompileOptions,
  CompileWarning,
} from './types.js'

/** Marks a referenced key the variables do not have (distinct from one present with `undefined`). */
const ABSENT: unique symbol = Symbol('absent')

/** One section as `renderSections` rendered it, with what the rendering depended on. */
interface RenderedMemo {
  dialect: AssembledSection['dialect']
  name: string
  /** Every key the section references, conditions included. */
  keys: readonly string[]
  /** The value of each key at render time, or ABSENT. */
  values: readonly (string | undefined | typeof ABSENT)[]
  /** `''` when the section rendered empty (dropped). */
  text: string
  bytes: number
}

// Rendered sections by source text. A render is a pure function of the
// source, its dialect and the values of the keys it references, so an
// unchanged section is found with one lookup keyed by its source string
// (whose hash V8 keeps) instead of being rendered again into a fresh string
// that every later memo would have to hash character by character.
const renderMemo = new TextCache<RenderedMemo[]>(1024)
const VARIANTS_PER_SOURCE = 4

function renderedValue(
  variables: PromptAssembly['variables'],
  key: string,
): string | undefined | typeof ABSENT {
  return Object.hasOwn(variables, key) ? variables[key] : ABSENT
}

// Whole-list hashes by the names and hashes they cover: the canonical JSON of
// an unchanged list is not rebuilt on every compile.
const toolListMemo = new WeakMap<HashFunction, TextCache<string>>()

function toolListHash(tools: readonly CompiledTool[], hash: HashFunction = sha256Hex): string {
  let memo = toolListMemo.get(hash)
  if (memo === undefined) {
    memo = new TextCache(256)
    toolListMemo.set(hash, memo)
  }
  let key = ''
  for (const tool of tools) key += `${tool.name}\u0000${tool.hash}\u0000`
  let digest = memo.get(key)
  if (digest === undefined) {
    digest = hashText(canonicalJson(tools.map(({ name, hash }) => ({ name, hash }))), hash)
    memo.set(key, digest)
  }
  return digest
}

/** The section rendered through `renderSections` (the one renderer), memoized. */
function renderSection(section: AssembledSection, assembly: PromptAssembly): RenderedMemo {
  const variants = renderMemo.get(section.text)
  if (variants !== undefined) {
    for (const memo of variants) {
      if (memo.dialect !== section.dialect || memo.name !== section.name) continue
      let same = true
      for (let i = 0; i < memo.keys.length && same; i++) {
        same = memo.values[i] === renderedValue(assembly.variables, memo.keys[i]!)
      }
      if (same) return memo
    }
  }
  const keys = compileTemplate(section.text, { dialect: section.dialect, strict: false }).variables
  const [rendered] = renderSections({ ...assembly, sections: [section] })
  const text = rendered?.text ?? ''
  const memo: RenderedMemo = {
    dialect: section.dialect,
    name: section.name,
    keys,
    values: keys.map((key) => renderedValue(assembly.variables, key)),
    text,
    bytes: utf8Length(text),
  }
  if (variants === undefined) renderMemo.set(section.text, [memo])
  else {
    if (variants.length >= VARIANTS_PER_SOURCE) variants.shift()
    variants.push(memo)
  }
  return memo
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

// The last few joined texts: an unchanged prompt reuses the same string
// object, so its hash and count lookups need not read 30 KB again.
const recentJoins: { parts: readonly string[]; text: string }[] = []

function join(parts: readonly string[]): string {
  for (const recent of recentJoins) {
    if (recent.parts.length === parts.length && recent.parts.every((p, i) => p === parts[i]))
      return recent.text
  }
  const text = parts.join(SECTION_SEPARATOR)
  if (recentJoins.length >= 8) recentJoins.shift()
  recentJoins.push({ parts, text })
  return text
}

// Tool hashes by the schema's plain JSON. Sorting keys allocates a copy of
// every object; `JSON.stringify` is native and, for JSON data, determines the
// canonical form, so an unchanged schema (even a fresh clone of it) costs one
// stringify and a lookup.
const toolMemo = new WeakMap<HashFunction, TextCache<string>>()

function toolHash(schema: ToolSchema, hash: HashFunction = sha256Hex): string {
  let memo = toolMemo.get(hash)
  if (memo === undefined) {
    memo = new TextCache(1024)
    toolMemo.set(hash, memo)
  }
  const plain = JSON.stringify(schema)
  let digest = memo.get(plain)
  if (digest === undefined) {
    digest = hashText(canonicalJson(schema), hash)
    memo.set(plain, digest)
  }
  return digest
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
 * recompiling an unchanged assembly costs lookups; `tokens` is the sum of the
 * section counts and the separators' (`exactTokens: true` also counts the
 * whole text). A section whose effective stability is `turn` is a warning,
 * or a `CompileError` with `volatile: 'error'`; a `budget` cuts sections by
 * priority (see `applyBudget`), measured against `tokens` (not `exactTokens`),
 * and the result describes the cut text.
 */
export function compile(assembly: PromptAssembly, options: CompileOptions = {}): CompiledPrompt {
  const tokenizer = resolveTokenizer(options.tokenizer)
  const volatile = options.volatile ?? 'warn'
  if (volatile !== 'warn' && volatile !== 'error') {
    throw new TypeError(`compile: volatile must be "warn" or "error", got ${JSON.stringify(volatile)}`)
  }
  const kept: { section: AssembledSection; memo: RenderedMemo }[] = []
  for (const section of assembly.sections) {
    const memo = renderSection(section, assembly)
    if (memo.text.length > 0) kept.push({ section, memo })
  }

  const warnings: CompileWarning[] = []
  const stabilities: Stability[] = []
  for (const { section, memo } of kept) {
    const { stability, turnKeys } = stabilityOf(section.stability, memo.keys, assembly)
    stabilities.push(stability)
    if (stability !== 'turn') continue
    const message = turnMessage(section.name, turnKeys)
    if (volatile === 'error') {
      throw new CompileError('turn-in-system-prompt', `${message}, or compile with volatile: "warn"`, {
        section: section.name,
      })
    }
    warnings.push({ code: 'turn-in-system-prompt', section: section.name, message })
  }

  let texts = kept.map((k) => k.memo.text)
  let counts = texts.map((t) => countTokens(tokenizer, t))
  const separatorTokens = countTokens(tokenizer, SECTION_SEPARATOR)
  let cuts: BudgetCut[] = []
  if (options.budget !== undefined) {
    const budgeted = applyBudget(
      kept.map(({ section }, i) => ({
        name: section.name,
        text: texts[i]!,
        tokens: counts[i]!,
        ...(section.priority === undefined ? {} : { priority: section.priority }),
      })),
      options.budget.maxTokens,
      tokenizer,
      separatorTokens,
    )
    texts = budgeted.texts
    counts = budgeted.tokens
    cuts = budgeted.cuts
    warnings.push(...budgeted.warnings)
  }

  const text = join(texts)
  const sections: CompiledSection[] = []
  let offset = 0
  let tokens = 0
  let bytes = 0
  for (let i = 0; i < texts.length; i++) {
    const sectionText = texts[i]!
    const { section, memo } = kept[i]!
    if (i > 0) {
      offset += SECTION_SEPARATOR.length
      tokens += separatorTokens
      bytes += SECTION_SEPARATOR.length // ASCII: one byte per character
    }
    const start = offset
    offset += sectionText.length
    tokens += counts[i]!
    bytes += sectionText === memo.text ? memo.bytes : bytesOfCut(sectionText)
    sections.push({
      name: section.name,
      order: section.order,
      stability: stabilities[i]!,
      start,
      end: offset,
      tokens: counts[i]!,
      hash: hashText(sectionText, options.hash),
    })
  }

  const tools: CompiledTool[] = assembly.tools.map((schema) => ({
    name: schema.name,
    hash: toolHash(schema, options.hash),
    schema,
  }))
  const toolsHash = toolListHash(tools, options.hash)

  return {
    text,
    hash: hashText(text, options.hash),
    bytes,
    tokens,
    ...(options.exactTokens === true ? { exactTokens: countTokens(tokenizer, text) } : {}),
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
