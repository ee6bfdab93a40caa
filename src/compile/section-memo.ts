import { renderSections } from '../registry/render-prompt.js'
import type { SectionSlot } from '../registry/section-slot.js'
import type { AssembledSection, PromptAssembly } from '../registry/types.js'
import { type HashFunction, hashText, sha256Hex, utf8Length } from '../shared/hash.js'
import { TextCache } from '../shared/text-cache.js'
import { compileTemplate, type Insertion } from '../template/index.js'
import { countTokens } from './tokenizers.js'
import type { Tokenizer } from './types.js'

/** Marks a referenced key the variables do not have (distinct from one present with `undefined`). */
const ABSENT: unique symbol = Symbol('absent')

/**
 * One section as `renderSections` rendered it, with what the rendering
 * depended on, and the last count and hash of its text: an unchanged section
 * costs this one lookup, not one per memo.
 */
export interface SectionMemo {
  /** The section's text before rendering. */
  readonly source: string
  readonly dialect: AssembledSection['dialect']
  readonly name: string
  /** Every key the section references, conditions included. */
  readonly keys: readonly string[]
  /** The value of each key at render time, or ABSENT. */
  readonly values: readonly (string | undefined | typeof ABSENT)[]
  /** `''` when the section rendered empty (dropped). */
  readonly text: string
  /** Where each inserted value landed in `text` (from the renderer). */
  readonly insertions: readonly Insertion[]
  readonly bytes: number
  /** The tokenizer `tokens` was counted with (one slot: a harness compiles with one). */
  countedBy: Tokenizer | undefined
  tokens: number
  /** The hash function `hash` was made with. */
  hashedBy: HashFunction | undefined
  hash: string
  /** The {@link contentEpoch} whose variables were last found to give `values` (0: none yet). */
  validIn: number
  /** The epoch, declared stability and effective stability last computed for this memo's keys. */
  stabilityIn: number
  declared: AssembledSection['stability'] | undefined
  effective: AssembledSection['stability']
}

/** What one assembly's `variables` and `stability` held: own keys (in their order) and values. */
interface Snapshot {
  id: number
  variableKeys: string[]
  variableValues: unknown[]
  stabilityKeys: string[]
  stabilityValues: unknown[]
}

// The last few distinct contents of `variables` and `stability`, newest last. A harness
// recompiling with unchanged values finds its content here with one comparison per
// variable, and every memo validated under that content is valid again without reading
// its keys: a lookup per section instead of a few per key. A few are kept so that
// assemblies of several registries (or scopes) interleaving do not evict each other.
const snapshots: Snapshot[] = []
const SNAPSHOTS = 4
let nextEpoch = 1

function sameContent(object: object, keys: readonly string[], values: readonly unknown[]): boolean {
  const own = Object.getOwnPropertyNames(object)
  if (own.length !== keys.length) return false
  const record = object as Record<string, unknown>
  for (let i = 0; i < own.length; i++) {
    const key = own[i]!
    if (key !== keys[i] || record[key] !== values[i]) return false
  }
  return true
}

function valuesOf(object: object, keys: readonly string[]): unknown[] {
  const record = object as Record<string, unknown>
  const values = new Array<unknown>(keys.length)
  for (let i = 0; i < keys.length; i++) values[i] = record[keys[i]!]
  return values
}

/**
 * A number standing for the content of the assembly's `variables` and
 * `stability` (every own key, in order, and its value): equal numbers mean
 * equal content, so a memo checked against the values of one compile holds
 * for the next with the same number. Everything a render or a stability
 * reads of an assembly (`Object.hasOwn` and the value of a key) is in it.
 */
export function contentEpoch(assembly: Pick<PromptAssembly, 'variables' | 'stability'>): number {
  const { variables, stability } = assembly
  for (let r = snapshots.length - 1; r >= 0; r--) {
    const s = snapshots[r]!
    if (
      sameContent(variables, s.variableKeys, s.variableValues) &&
      sameContent(stability, s.stabilityKeys, s.stabilityValues)
    )
      return s.id
  }
  const variableKeys = Object.getOwnPropertyNames(variables)
  const stabilityKeys = Object.getOwnPropertyNames(stability)
  const snapshot: Snapshot = {
    id: nextEpoch++,
    variableKeys,
    variableValues: valuesOf(variables, variableKeys),
    stabilityKeys,
    stabilityValues: valuesOf(stability, stabilityKeys),
  }
  if (snapshots.length >= SNAPSHOTS) snapshots.shift()
  snapshots.push(snapshot)
  return snapshot.id
}

// Rendered sections by source text. A render is a pure function of the
// source, its dialect and the values of the keys it references, so an
// unchanged section is found with one lookup keyed by its source string
// (whose hash V8 keeps) instead of being rendered again into a fresh string
// that every later memo would have to hash character by character.
const renderMemo = new TextCache<SectionMemo[]>(1024)
// A registered section's renders live in its registration's slot
// (section-slot.ts): unbounded in the number of sections, alive as long as the
// registration, one property read away.
const VARIANTS_PER_SOURCE = 4

function renderedValue(
  variables: PromptAssembly['variables'],
  key: string,
): string | undefined | typeof ABSENT {
  return Object.hasOwn(variables, key) ? variables[key] : ABSENT
}

/**
 * The section rendered through `renderSections` (the one renderer),
 * memoized; `epoch` is the assembly's {@link contentEpoch} (a memo already
 * checked under it is not checked again), or 0 to check every key.
 */
export function renderSection(
  section: AssembledSection,
  assembly: PromptAssembly,
  slot: SectionSlot | undefined,
  epoch = 0,
): SectionMemo {
  const variants =
    slot === undefined ? renderMemo.get(section.text) : (slot.renders as SectionMemo[] | undefined)
  if (variants !== undefined) {
    for (const memo of variants) {
      if (memo.source !== section.text || memo.dialect !== section.dialect || memo.name !== section.name)
        continue
      if (epoch !== 0 && memo.validIn === epoch) return memo
      let same = true
      for (let i = 0; i < memo.keys.length && same; i++) {
        same = memo.values[i] === renderedValue(assembly.variables, memo.keys[i]!)
      }
      if (same) {
        memo.validIn = epoch
        return memo
      }
    }
  }
  const [rendered] = renderSections({ ...assembly, sections: [section] })
  // The template renderSections compiled (a cache hit): having parsed without
  // error, it references the same keys as the lenient parse would.
  const keys = compileTemplate(section.text, { dialect: section.dialect, name: section.name }).variables
  const text = rendered?.text ?? ''
  const memo: SectionMemo = {
    source: section.text,
    dialect: section.dialect,
    name: section.name,
    keys,
    values: keys.map((key) => renderedValue(assembly.variables, key)),
    text,
    insertions: rendered?.insertions ?? [],
    bytes: utf8Length(text),
    countedBy: undefined,
    tokens: 0,
    hashedBy: undefined,
    hash: '',
    validIn: epoch,
    stabilityIn: 0,
    declared: undefined,
    effective: 'static',
  }
  if (variants === undefined) {
    if (slot === undefined) renderMemo.set(section.text, [memo])
    else slot.renders = [memo]
  } else {
    if (variants.length >= VARIANTS_PER_SOURCE) variants.shift()
    variants.push(memo)
  }
  return memo
}

/** `countTokens` of the section's text, from its own slot when the tokenizer is the last one used. */
export function sectionTokens(memo: SectionMemo, tokenizer: Tokenizer): number {
  if (memo.countedBy !== tokenizer) {
    memo.tokens = countTokens(tokenizer, memo.text)
    memo.countedBy = tokenizer
  }
  return memo.tokens
}

/** `hashText` of the section's text, from its own slot when the hash function is the last one used. */
export function sectionHash(memo: SectionMemo, hash: HashFunction = sha256Hex): string {
  if (memo.hashedBy !== hash) {
    memo.hash = hashText(memo.text, hash)
    memo.hashedBy = hash
  }
  return memo.hash
}
