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
  /** The {@link contentEpoch} whose variables were last found to give `values` (0: none yet, or keys not watched). */
  validIn: number
  /** The epoch, declared stability and effective stability last computed for this memo's keys. */
  stabilityIn: number
  declared: AssembledSection['stability'] | undefined
  effective: AssembledSection['stability']
}

/** What one assembly's `variables` and `stability` held at each {@link watched} key (the first `length` of them). */
interface Snapshot {
  id: number
  /** For watched key i: its value in `variables` at 2i, in `stability` at 2i + 1 (ABSENT when not an own key). */
  values: unknown[]
}

// The last few distinct contents of `variables` and `stability`, newest last. A harness
// recompiling with unchanged values finds its content here with two comparisons per
// watched key, and every memo validated under that content is valid again without reading
// its keys: a lookup per section instead of a few per key. A few are kept so that
// assemblies of several registries (or scopes) interleaving do not evict each other.
const snapshots: Snapshot[] = []
const SNAPSHOTS = 4
let nextEpoch = 1

// The content an epoch stands for is that of the watched keys: every key some memo validated
// under an epoch references (a render reads only its memo's keys, a stability only those too).
// Comparing them needs no key list of the assembly's objects (`Object.getOwnPropertyNames` of
// two objects per compile, the larger cost), and a key nothing references cannot change a
// result. A memo is marked valid under an epoch only once its keys are all watched; a
// snapshot taken over fewer keys than are watched now is never matched again.
// Bounded: a memo whose keys do not fit stays unwatched and is checked key by key.
const watched: string[] = []
const watchedSet = new Set<string>()
const MAX_WATCHED = 1024

/** Whether `keys` are all watched, watching any new ones when they fit. */
function watch(keys: readonly string[]): boolean {
  let fresh = 0
  for (const key of keys) if (!watchedSet.has(key)) fresh++
  if (fresh === 0) return true
  if (watched.length + fresh > MAX_WATCHED) return false
  for (const key of keys) {
    if (watchedSet.has(key)) continue
    watchedSet.add(key)
    watched.push(key)
  }
  return true
}

function ownValue(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : ABSENT
}

/**
 * A number standing for the content of the assembly's `variables` and
 * `stability` at every watched key (whether it is an own key, and its
 * value): equal numbers mean equal content there, so a memo whose keys are
 * watched, checked against the values of one compile, holds for the next
 * with the same number. Everything a render or a stability reads of an
 * assembly (`Object.hasOwn` and the value of a key) is in it.
 */
export function contentEpoch(assembly: Pick<PromptAssembly, 'variables' | 'stability'>): number {
  const variables = assembly.variables as Record<string, unknown>
  const stability = assembly.stability as Record<string, unknown>
  const n = watched.length
  for (let r = snapshots.length - 1; r >= 0; r--) {
    const { values } = snapshots[r]!
    // A snapshot taken over fewer keys never matches (a key watched since could be anything).
    if (values.length !== 2 * n) continue
    let same = true
    for (let i = 0; i < n && same; i++) {
      const key = watched[i]!
      same = ownValue(variables, key) === values[2 * i] && ownValue(stability, key) === values[2 * i + 1]
    }
    if (same) return snapshots[r]!.id
  }
  const values = new Array<unknown>(2 * n)
  for (let i = 0; i < n; i++) {
    const key = watched[i]!
    values[2 * i] = ownValue(variables, key)
    values[2 * i + 1] = ownValue(stability, key)
  }
  const snapshot: Snapshot = { id: nextEpoch++, values }
  if (snapshots.length >= SNAPSHOTS) snapshots.shift()
  snapshots.push(snapshot)
  return snapshot.id
}

/** The epoch a memo with `keys` may be marked valid under: `epoch` when its keys are watched, else 0 (never matched). */
export function epochFor(keys: readonly string[], epoch: number): number {
  return epoch !== 0 && watch(keys) ? epoch : 0
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
        memo.validIn = epochFor(memo.keys, epoch)
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
    validIn: epochFor(keys, epoch),
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
