/**
 * The compiled form of a template: a flat instruction list with jump targets
 * instead of a tree, so that rendering is one loop with no recursion on the
 * JS stack however deep the conditionals nest (SPEC §2 "Cost").
 *
 * Instruction `i` is spread over three parallel arrays rather than held in
 * an object: `ops[i]` (the {@link Op}, {@link OP_NEGATED}, and the key's
 * slot shifted by {@link SLOT_SHIFT}), `args[i]` (a jump target, or the
 * source offset of an insertion for its error) and `texts[i]` (the literal
 * text of a `Text`, and `''` for every other instruction, so that rendering
 * can start from a copy of `texts`). Arrays of small integers and of strings
 * cost a fraction of the objects, and V8 never discards their hidden
 * classes: the classes of objects are dropped by a full collection that
 * finds none alive, and with them all code specialised to them.
 */

export enum Op {
  /** The literal text `texts[i]`. */
  Text = 0,
  /** The value of the key in the slot, in place of `texts[i]`. */
  Insert = 1,
  /** Test the key in the slot; fall through when the test passes, else jump to `args[i]`. */
  If = 2,
  /** Jump to `args[i]` (the end of an `if` branch that has an `else`). */
  Jump = 3,
}

/** Masks the {@link Op} out of `ops[i]`. */
export const OP_MASK = 3
/** Set in `ops[i]` of an `If` that tests `!key`. */
export const OP_NEGATED = 4
/** `ops[i] >> SLOT_SHIFT` is the key's index in the template's variables, whose values render resolves once. */
export const SLOT_SHIFT = 3

/** A compiled template's instructions (see the module comment). */
export interface Program {
  readonly ops: readonly number[]
  readonly args: readonly number[]
  readonly texts: readonly string[]
}
