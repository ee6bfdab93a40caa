import { excerpt, type TemplateErrorCode } from './errors.js'
import { KeySlots } from './keys.js'
import { OP_NEGATED, Op, type Program, SLOT_SHIFT } from './program.js'
import {
  type DialectSyntax,
  LITERAL,
  NEGATED,
  TAG_END,
  TAG_KEY_END,
  TAG_KEY_START,
  TAG_KIND,
  TAG_START,
  TAG_STRIDE,
  type TagBuffer,
  TagKind,
} from './tokens.js'

/** A problem strict mode rejects at parse time, before positions are turned into lines. */
export interface Problem {
  code: TemplateErrorCode
  offset: number
  message: string
}

export interface Parsed {
  program: Program
  /** Keys in first-appearance order, with the offset of that first appearance. */
  variables: string[]
  variableOffsets: number[]
  /** The first `limit` problems by offset (see {@link parse}). */
  problems: Problem[]
  /** How many problems there are in all. */
  problemCount: number
}

/** Shared by every compile (they are synchronous): the table of key strings it holds outlives templates. */
const keySlots = new KeySlots()

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
export function parse(source: string, buffer: TagBuffer, syntax: DialectSyntax, limit: number): Parsed {
  const pairing: PairProblems = { strays: [], unclosed: [], orphans: [] }
  pair(buffer, pairing)
  keySlots.begin()
  const program = emit(source, buffer)
  const { variables, offsets: variableOffsets } = keySlots.finish()
  const problemCount =
    buffer.malformedCount + pairing.strays.length + pairing.unclosed.length + pairing.orphans.length
  const problems = problemCount === 0 ? [] : firstProblems(source, buffer, pairing, syntax, limit)
  return { program, variables, variableOffsets, problems, problemCount }
}

/** Marks the tags that are literal text (with {@link LITERAL}) and records why. */
function pair(buffer: TagBuffer, problems: PairProblems): void {
  const tags = buffer.tags
  const end = buffer.count * TAG_STRIDE
  // Per open `if`: its tag's place in `tags`, and that of its `else` (or -1).
  const open: number[] = []
  const elses: number[] = []
  for (let at = 0; at < end; at += TAG_STRIDE) {
    const kind = tags[at + TAG_KIND]! & 3
    if (kind === TagKind.If) {
      open.push(at)
      elses.push(-1)
    } else if (kind === TagKind.Else) {
      const top = elses.length - 1
      if (top >= 0 && elses[top] === -1) {
        elses[top] = at
      } else {
        tags[at + TAG_KIND]! |= LITERAL
        problems.strays.push((at / TAG_STRIDE) * 4 + (top < 0 ? STRAY_ELSE : SECOND_ELSE))
      }
    } else if (kind === TagKind.End) {
      if (open.length > 0) {
        open.pop()
        elses.pop()
      } else {
        tags[at + TAG_KIND]! |= LITERAL
        problems.strays.push((at / TAG_STRIDE) * 4 + STRAY_END)
      }
    }
  }
  // An `if` lower on the stack got its `else` before the next `if` opened,
  // so the orphaned `else`s are in source order too.
  for (let i = 0; i < open.length; i++) {
    const at = open[i]!
    tags[at + TAG_KIND]! |= LITERAL
    problems.unclosed.push(at / TAG_STRIDE)
    const orphan = elses[i]!
    if (orphan >= 0) {
      tags[orphan + TAG_KIND]! |= LITERAL
      problems.orphans.push(orphan / TAG_STRIDE)
    }
  }
}

/**
 * Emits the program, giving every key a slot (the keys of literal `if` tags
 * too, which `variables` lists). A run of text between two tags that are
 * not literal is one part (literal tags are part of the run); an empty run
 * gets no part.
 */
function emit(source: string, buffer: TagBuffer): Program {
  const tags = buffer.tags
  // Built by push: packed arrays, which the render's copy and join read fastest.
  const texts: string[] = []
  const ops: number[] = []
  const args: number[] = []
  const at: number[] = []
  const ends: number[] = []
  // Per open block: the index of its `If` instruction, then of its `Jump` once an `else` is seen.
  const blocks: number[] = []
  let textStart = 0
  const end = buffer.count * TAG_STRIDE
  for (let pos = 0; pos < end; pos += TAG_STRIDE) {
    const kind = tags[pos + TAG_KIND]!
    const start = tags[pos + TAG_START]!
    const slot =
      (kind & 3) <= TagKind.If
        ? keySlots.slotOf(source, tags[pos + TAG_KEY_START]!, tags[pos + TAG_KEY_END]!, start)
        : 0
    if ((kind & LITERAL) !== 0) continue
    if (start > textStart) texts.push(source.slice(textStart, start))
    textStart = tags[pos + TAG_END]!
    switch (kind & 3) {
      case TagKind.Insert:
        ops.push(Op.Insert | (slot << SLOT_SHIFT))
        args.push(start)
        at.push(texts.length)
        ends.push(0)
        texts.push('')
        break
      case TagKind.If:
        blocks.push(ops.length)
        ops.push(Op.If | ((kind & NEGATED) !== 0 ? OP_NEGATED : 0) | (slot << SLOT_SHIFT))
        args.push(0)
        at.push(texts.length)
        ends.push(0)
        break
      case TagKind.Else: {
        const top = blocks.length - 1
        const branch = blocks[top]!
        blocks[top] = ops.length
        ops.push(Op.Jump)
        args.push(0)
        at.push(texts.length)
        ends.push(0)
        // A failed test skips the `if` branch's parts and goes on after the `Jump`.
        args[branch] = ops.length
        ends[branch] = texts.length
        break
      }
      default: {
        const branch = blocks.pop()!
        args[branch] = ops.length
        ends[branch] = texts.length
      }
    }
  }
  if (source.length > textStart) texts.push(source.slice(textStart))
  return { texts, renders: 0, layout: undefined, ops, args, at, ends }
}

/** Merges the four sorted problem lists, describing only the first `limit`. */
function firstProblems(
  source: string,
  buffer: TagBuffer,
  pairing: PairProblems,
  syntax: DialectSyntax,
  limit: number,
): Problem[] {
  const { tags, malformed } = buffer
  const tagStart = (i: number): number => tags[i * TAG_STRIDE + TAG_START]!
  const describe = [
    (i: number): Problem => {
      const start = malformed[2 * i]!
      const end = malformed[2 * i + 1]!
      return {
        code: 'malformed-reference',
        offset: start,
        // A span of just the opening braces is a `{{` that opens no complete group.
        message:
          end - start === syntax.open.length
            ? `"${syntax.open}" opens no complete ${syntax.open}…${syntax.close} group while a "${syntax.close}" follows; close the reference or remove the extra braces`
            : `"${excerpt(source.slice(start, end))}" is not a valid reference; write {{name}}, {{namespace:key}}, {{#if key}}, {{else}} or {{/if}}, with no spaces inside the braces`,
      }
    },
    (i: number): Problem => {
      const entry = pairing.strays[i]!
      const kind = entry & 3
      return {
        code: 'stray-tag',
        offset: tagStart(entry >> 2),
        message:
          kind === STRAY_END
            ? `"${syntax.endTag}" closes no open block; remove it or add ${syntax.ifTag('key')} before it`
            : kind === STRAY_ELSE
              ? `"${syntax.elseTag}" has no open block; remove it or add ${syntax.ifTag('key')} before it`
              : `second "${syntax.elseTag}" in one block; a block takes one ${syntax.elseTag}`,
      }
    },
    (i: number): Problem => {
      const at = pairing.unclosed[i]! * TAG_STRIDE
      const negated = (tags[at + TAG_KIND]! & NEGATED) !== 0
      const key = source.slice(tags[at + TAG_KEY_START]!, tags[at + TAG_KEY_END]!)
      return {
        code: 'unclosed-block',
        offset: tags[at + TAG_START]!,
        message: `"${excerpt(syntax.ifTag((negated ? '!' : '') + key))}" is never closed; add ${syntax.endTag}`,
      }
    },
    (i: number): Problem => ({
      code: 'stray-tag',
      offset: tagStart(pairing.orphans[i]!),
      message: `"${syntax.elseTag}" belongs to a block that is never closed; add ${syntax.endTag}`,
    }),
  ]
  const offsets = [
    (i: number) => malformed[2 * i]!,
    (i: number) => tagStart(pairing.strays[i]! >> 2),
    (i: number) => tagStart(pairing.unclosed[i]!),
    (i: number) => tagStart(pairing.orphans[i]!),
  ]
  const lengths = [
    buffer.malformedCount,
    pairing.strays.length,
    pairing.unclosed.length,
    pairing.orphans.length,
  ]
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
