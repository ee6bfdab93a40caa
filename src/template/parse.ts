import { excerpt, type TemplateErrorCode } from './errors.js'
import { Instruction, Op } from './program.js'
import { type DialectSyntax, type Malformed, type Tag, TagKind, type TokenizeResult } from './tokens.js'

/** A problem strict mode rejects at parse time, before positions are turned into lines. */
export interface Problem {
  code: TemplateErrorCode
  offset: number
  message: string
}

export interface Parsed {
  program: Instruction[]
  /** Keys in first-appearance order, with the offset of that first appearance. */
  variables: string[]
  variableOffsets: number[]
  /** The first `limit` problems by offset (see {@link parse}). */
  problems: Problem[]
  /** How many problems there are in all. */
  problemCount: number
}

const STRAY_ELSE = 0
const SECOND_ELSE = 1
const STRAY_END = 2

/** Problems found while pairing, each list already in source order. */
interface PairProblems {
  strays: number[] // tag index * 4 + kind
  unclosed: number[] // tag indices of `if`s never closed
  orphans: number[] // tag indices of `else`s whose `if` is never closed
}

/**
 * Pairs block tags like brackets, innermost first, and emits the program.
 *
 * A tag that takes no part in a complete block (an `if` never closed, a
 * stray `else` or end tag, a second `else`) is kept as literal text and
 * reported as a problem; strict mode turns the first problem into an error.
 * Literal tags are contiguous with the text around them, so each run of text
 * becomes one slice of the source. Problems are kept as offsets in sorted
 * lists and only the first `limit` get a message: megabytes of stray braces
 * make a million problems, and nobody reads past the first hundred.
 */
export function parse(source: string, tokens: TokenizeResult, syntax: DialectSyntax, limit: number): Parsed {
  const { tags, malformed } = tokens
  const pairing: PairProblems = { strays: [], unclosed: [], orphans: [] }
  const literal = pair(tags, pairing)

  const slots = new Map<string, number>()
  const variables: string[] = []
  const variableOffsets: number[] = []
  for (const tag of tags) {
    if (tag.key !== '' && !slots.has(tag.key)) {
      slots.set(tag.key, variables.length)
      variables.push(tag.key)
      variableOffsets.push(tag.start)
    }
  }
  const problemCount =
    malformed.length + pairing.strays.length + pairing.unclosed.length + pairing.orphans.length
  const problems = problemCount === 0 ? [] : firstProblems(source, tags, malformed, pairing, syntax, limit)
  return { program: emit(source, tags, literal, slots), variables, variableOffsets, problems, problemCount }
}

/** Marks which tags are literal text and records why. */
function pair(tags: Tag[], problems: PairProblems): Uint8Array {
  const literal = new Uint8Array(tags.length)
  const elseOf = new Int32Array(tags.length).fill(-1)
  const open: number[] = []
  for (let i = 0; i < tags.length; i++) {
    const kind = tags[i]!.kind
    if (kind === TagKind.If) {
      open.push(i)
    } else if (kind === TagKind.Else) {
      const top = open.length > 0 ? open[open.length - 1]! : -1
      if (top >= 0 && elseOf[top] === -1) {
        elseOf[top] = i
      } else {
        literal[i] = 1
        problems.strays.push(i * 4 + (top < 0 ? STRAY_ELSE : SECOND_ELSE))
      }
    } else if (kind === TagKind.End) {
      if (open.length > 0) open.pop()
      else {
        literal[i] = 1
        problems.strays.push(i * 4 + STRAY_END)
      }
    }
  }
  // An `if` lower on the stack got its `else` before the next `if` opened,
  // so the orphaned `else`s are in source order too.
  for (const i of open) {
    literal[i] = 1
    problems.unclosed.push(i)
    const orphan = elseOf[i]!
    if (orphan >= 0) {
      literal[orphan] = 1
      problems.orphans.push(orphan)
    }
  }
  return literal
}

/** Merges the four sorted problem lists, describing only the first `limit`. */
function firstProblems(
  source: string,
  tags: Tag[],
  malformed: Malformed[],
  pairing: PairProblems,
  syntax: DialectSyntax,
  limit: number,
): Problem[] {
  const describe = [
    (i: number): Problem => {
      const m = malformed[i]!
      return {
        code: 'malformed-reference',
        offset: m.start,
        message: m.unpaired
          ? `"${syntax.open}" opens no complete ${syntax.open}…${syntax.close} group while a "${syntax.close}" follows; close the reference or remove the extra braces`
          : `"${excerpt(source.slice(m.start, m.end))}" is not a valid reference; write {{name}}, {{namespace:key}}, {{#if key}}, {{else}} or {{/if}}, with no spaces inside the braces`,
      }
    },
    (i: number): Problem => {
      const entry = pairing.strays[i]!
      const tag = tags[entry >> 2]!
      const kind = entry & 3
      return {
        code: 'stray-tag',
        offset: tag.start,
        message:
          kind === STRAY_END
            ? `"${syntax.endTag}" closes no open block; remove it or add ${syntax.ifTag('key')} before it`
            : kind === STRAY_ELSE
              ? `"${syntax.elseTag}" has no open block; remove it or add ${syntax.ifTag('key')} before it`
              : `second "${syntax.elseTag}" in one block; a block takes one ${syntax.elseTag}`,
      }
    },
    (i: number): Problem => {
      const tag = tags[pairing.unclosed[i]!]!
      return {
        code: 'unclosed-block',
        offset: tag.start,
        message: `"${excerpt(syntax.ifTag((tag.negated ? '!' : '') + tag.key))}" is never closed; add ${syntax.endTag}`,
      }
    },
    (i: number): Problem => ({
      code: 'stray-tag',
      offset: tags[pairing.orphans[i]!]!.start,
      message: `"${syntax.elseTag}" belongs to a block that is never closed; add ${syntax.endTag}`,
    }),
  ]
  const offsets = [
    (i: number) => malformed[i]!.start,
    (i: number) => tags[pairing.strays[i]! >> 2]!.start,
    (i: number) => tags[pairing.unclosed[i]!]!.start,
    (i: number) => tags[pairing.orphans[i]!]!.start,
  ]
  const lengths = [malformed.length, pairing.strays.length, pairing.unclosed.length, pairing.orphans.length]
  const heads = [0, 0, 0, 0]
  const out: Problem[] = []
  while (out.length < limit) {
    let best = -1
    let bestOffset = Number.POSITIVE_INFINITY
    for (let list = 0; list < 4; list++) {
      if (heads[list]! < lengths[list]!) {
        const offset = offsets[list]!(heads[list]!)
        if (offset < bestOffset) {
          bestOffset = offset
          best = list
        }
      }
    }
    if (best < 0) break
    out.push(describe[best]!(heads[best]!))
    heads[best]!++
  }
  return out
}

function emit(
  source: string,
  tags: Tag[],
  literal: Uint8Array,
  slots: ReadonlyMap<string, number>,
): Instruction[] {
  const program: Instruction[] = []
  // Per open block: the index of its `If` instruction, then of its `Jump` once an `else` is seen.
  const blocks: number[] = []
  let textStart = 0
  const flush = (end: number): void => {
    if (end > textStart)
      program.push(new Instruction(Op.Text, source.slice(textStart, end), textStart, false, 0, -1))
  }
  for (let i = 0; i < tags.length; i++) {
    if (literal[i] === 1) continue
    const tag = tags[i]!
    flush(tag.start)
    textStart = tag.end
    switch (tag.kind) {
      case TagKind.Insert:
        program.push(new Instruction(Op.Insert, tag.key, tag.start, false, 0, slots.get(tag.key)!))
        break
      case TagKind.If:
        blocks.push(program.length)
        program.push(new Instruction(Op.If, tag.key, tag.start, tag.negated, -1, slots.get(tag.key)!))
        break
      case TagKind.Else: {
        const at = blocks.length - 1
        const branch = program[blocks[at]!]!
        blocks[at] = program.length
        program.push(new Instruction(Op.Jump, '', tag.start, false, -1, -1))
        branch.target = program.length
        break
      }
      case TagKind.End:
        program[blocks.pop()!]!.target = program.length
        break
    }
  }
  flush(source.length)
  return program
}
