/**
 * The compiled form of a template: a flat instruction list with jump targets
 * instead of a tree, so that rendering is one loop with no recursion on the
 * JS stack however deep the conditionals nest (SPEC §2 "Cost").
 */

export enum Op {
  /** Append `text`. */
  Text = 0,
  /** Append the value of `text` (the key). */
  Insert = 1,
  /** Test `text` (the key); fall through when the test passes, else jump to `target`. */
  If = 2,
  /** Jump to `target` (the end of an `if` branch that has an `else`). */
  Jump = 3,
}

/** One instruction. Every instruction has the same shape, which keeps the render loop monomorphic. */
export class Instruction {
  constructor(
    readonly op: Op,
    /** Literal text, or the key for `Insert` and `If`. */
    readonly text: string,
    /** Source offset of the tag (for errors); the text's start for `Text`. */
    readonly offset: number,
    readonly negated: boolean,
    public target: number,
    /** For `Insert` and `If`: the key's index in the template's variables, whose values render resolves once. */
    readonly slot: number,
  ) {}
}
