/**
 * The compiled form of a template: a flat instruction list with jump targets
 * instead of a tree, so that rendering is one loop with no recursion on the
 * JS stack however deep the conditionals nest (SPEC §2 "Cost").
 *
 * The output is laid out in advance as `texts`, one entry per *part*: each
 * run of literal text is one part, and each insertion has a part of its own
 * (`''` until rendered). Rendering copies `texts`, fills the insertions'
 * parts, blanks the parts of the branches not taken, and joins the copy.
 * The instructions are only what needs a decision (insertions, tests,
 * jumps): literal text costs the loop nothing.
 *
 * Instruction `i` is spread over parallel arrays rather than held in an
 * object: `ops[i]` (the {@link Op}, {@link OP_NEGATED}, and the key's slot
 * shifted by {@link SLOT_SHIFT}), `args[i]` (the instruction a jump goes to,
 * or the source offset of an insertion for its error), `at[i]` (the part an
 * insertion fills, or the first part a jump skips) and `ends[i]` (the part
 * after the last one a jump skips). Arrays of small integers and of strings
 * cost a fraction of the objects, and V8 never discards their hidden
 * classes: the classes of objects are dropped by a full collection that
 * finds none alive, and with them all code specialised to them.
 */

export enum Op {
  /** The value of the key in the slot, into part `at[i]`. */
  Insert = 1,
  /** Test the key in the slot; fall through when the test passes, else skip parts `at[i]`…`ends[i]` and go to `args[i]`. */
  If = 2,
  /** Skip parts `at[i]`…`ends[i]` and go to `args[i]` (the `else` branch of a block whose `if` branch ran). */
  Jump = 3,
}

/** Masks the {@link Op} out of `ops[i]`. */
export const OP_MASK = 3
/** Set in `ops[i]` of an `If` that tests `!key`. */
export const OP_NEGATED = 4
/** `ops[i] >> SLOT_SHIFT` is the key's index in the template's variables, whose values render resolves once. */
export const SLOT_SHIFT = 3

/**
 * The output of one rendering path laid out again for speed (see
 * `render.ts`): which path a render takes depends only on which of the
 * template's keys have a value, so a layout made for one such pattern holds
 * for every render with the same pattern. Its literal text is pre-joined
 * between insertions, so a render fills and joins a few parts instead of
 * one per literal run and blanked branch.
 */
export interface Layout {
  /** For each key slot, whether its value was present when the layout was made. */
  readonly present: readonly boolean[]
  /** The output's parts on this path: pre-joined literal text, and `''` where an insertion goes. */
  readonly parts: readonly string[]
  /** The part each insertion on the path fills, in output order. */
  readonly places: readonly number[]
  /** The key slot whose value fills the part in {@link places} at the same index. */
  readonly slots: readonly number[]
}

/**
 * A compiled template's output parts and instructions (see the module
 * comment). `renders` and `layout` are the only fields that change, and only
 * to make rendering cheaper: `renders` counts the renders that found no
 * matching layout, and at a threshold render makes a {@link Layout} for the
 * values it has (see `render.ts`). What a render returns never changes.
 */
export interface Program {
  readonly texts: readonly string[]
  renders: number
  layout: Layout | undefined
  readonly ops: readonly number[]
  readonly args: readonly number[]
  readonly at: readonly number[]
  readonly ends: readonly number[]
}
