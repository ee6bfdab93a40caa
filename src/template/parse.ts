import { excerpt, type TemplateErrorCode } from './errors.js'
import { Instruction, Op } from './program.js'
import { type DialectSyntax, type Tag, TagKind, type TokenizeResult } from './tokens.js'

/** A problem strict mode rejects at parse time, before positions are turned into lines. */
export interface Problem {
  code: TemplateErrorCode
  offset: number
  /** Built only for the problems shown: megabytes of stray braces make a million problems. */
  message: () => string
}

export interface Parsed {
  program: Instruction[]
  /** Keys in first-appearance order, with the offset of that first appearance. */
  variables: string[]
  variableOffsets: number[]
  /** Sorted by offset. */
  problems: Problem[]
}

/**
 * Pairs block tags like brackets, innermost first, and emits the program.
 *
 * A tag that takes no part in a complete block (an `if` never closed, a
 * stray `else` or end tag, a second `else`) is kept as literal text and
 * reported as a problem; strict mode turns the first problem into an error.
 * Literal tags are contiguous with the text around them, so each run of text
 * becomes one slice of the source.
 */
export function parse(source: string, tokens: TokenizeResult, syntax: DialectSyntax): Parsed {
  const { tags } = tokens
  const problems: Problem[] = tokens.malformed.map((m) => ({
    code: 'malformed-reference',
    offset: m.start,
    message: () =>
      m.unpaired
        ? `"${syntax.open}" opens no complete ${syntax.open}…${syntax.close} group while a "${syntax.close}" follows; close the reference or remove the extra braces`
        : `"${excerpt(source.slice(m.start, m.end))}" is not a valid reference; write {{name}}, {{namespace:key}}, {{#if key}}, {{else}} or {{/if}}, with no spaces inside the braces`,
  }))
  const literal = pair(tags, syntax, problems)
  if (problems.length > 1) problems.sort((a, b) => a.offset - b.offset)

  const seen = new Map<string, number>()
  const variables: string[] = []
  const variableOffsets: number[] = []
  for (const tag of tags) {
    if (tag.key !== '' && !seen.has(tag.key)) {
      seen.set(tag.key, variables.length)
      variables.push(tag.key)
      variableOffsets.push(tag.start)
    }
  }
  return { program: emit(source, tags, literal), variables, variableOffsets, problems }
}

/** Marks which tags are literal text; records a problem for each. */
function pair(tags: Tag[], syntax: DialectSyntax, problems: Problem[]): Uint8Array {
  const literal = new Uint8Array(tags.length)
  const elseOf = new Int32Array(tags.length).fill(-1)
  const open: number[] = []
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!
    if (tag.kind === TagKind.If) {
      open.push(i)
    } else if (tag.kind === TagKind.Else) {
      const top = open.length > 0 ? open[open.length - 1]! : -1
      if (top >= 0 && elseOf[top] === -1) {
        elseOf[top] = i
      } else {
        literal[i] = 1
        problems.push({
          code: 'stray-tag',
          offset: tag.start,
          message: () =>
            top < 0
              ? `"${syntax.elseTag}" has no open block; remove it or add ${syntax.ifTag('key')} before it`
              : `second "${syntax.elseTag}" in one block; a block takes one ${syntax.elseTag}`,
        })
      }
    } else if (tag.kind === TagKind.End) {
      if (open.length > 0) open.pop()
      else {
        literal[i] = 1
        problems.push({
          code: 'stray-tag',
          offset: tag.start,
          message: () =>
            `"${syntax.endTag}" closes no open block; remove it or add ${syntax.ifTag('key')} before it`,
        })
      }
    }
  }
  for (const i of open) {
    const tag = tags[i]!
    literal[i] = 1
    problems.push({
      code: 'unclosed-block',
      offset: tag.start,
      message: () =>
        `"${syntax.ifTag((tag.negated ? '!' : '') + tag.key)}" is never closed; add ${syntax.endTag}`,
    })
    const orphan = elseOf[i]!
    if (orphan >= 0) {
      literal[orphan] = 1
      problems.push({
        code: 'stray-tag',
        offset: tags[orphan]!.start,
        message: () => `"${syntax.elseTag}" belongs to a block that is never closed; add ${syntax.endTag}`,
      })
    }
  }
  return literal
}

function emit(source: string, tags: Tag[], literal: Uint8Array): Instruction[] {
  const program: Instruction[] = []
  // Per open block: the index of its `If` instruction, then of its `Jump` once an `else` is seen.
  const blocks: number[] = []
  let textStart = 0
  const flush = (end: number): void => {
    if (end > textStart)
      program.push(new Instruction(Op.Text, source.slice(textStart, end), textStart, false, 0))
  }
  for (let i = 0; i < tags.length; i++) {
    if (literal[i] === 1) continue
    const tag = tags[i]!
    flush(tag.start)
    textStart = tag.end
    switch (tag.kind) {
      case TagKind.Insert:
        program.push(new Instruction(Op.Insert, tag.key, tag.start, false, 0))
        break
      case TagKind.If:
        blocks.push(program.length)
        program.push(new Instruction(Op.If, tag.key, tag.start, tag.negated, -1))
        break
      case TagKind.Else: {
        const at = blocks.length - 1
        const branch = program[blocks[at]!]!
        blocks[at] = program.length
        program.push(new Instruction(Op.Jump, '', tag.start, false, -1))
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
