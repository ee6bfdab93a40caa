import { describe, expect, it } from 'vitest'
import type { AssembledSection, PromptAssembly } from '../registry/types.js'
import { applyBudget, type BudgetSection } from './budget.js'
import { compile } from './compile.js'
import { CompileError } from './errors.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import { toAnthropic } from './provider-shapes.js'
import { registerTokenizerLoader, resolveTokenizer } from './tokenizers.js'
import type { Tokenizer } from './types.js'

// The errors and warnings of `compile` and its budget, pinned whole: each
// names what is at fault and what to do (SPEC §5).

/** One token per UTF-16 unit: budgets become easy to reason about. */
const chars: Tokenizer = { name: 'chars', count: (text) => text.length }

const keep: BudgetSection = { name: 'keep', text: 'K'.repeat(10), tokens: 10 }
const lowText = `${'x'.repeat(60)}\n${'y'.repeat(60)}\n${'z'.repeat(60)}`
const low: BudgetSection = { name: 'low', text: lowText, tokens: lowText.length, priority: 1 }
// The marker for 121 or 182 removed characters is 57 units long; two sections, so one separator of 2.
const budget = (maxTokens: number, sections = [keep, low]) => applyBudget(sections, maxTokens, chars, 2)

function thrown(run: () => unknown): Error {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected it to throw')
}

describe('applyBudget: exact limits and messages', () => {
  it('leaves a prompt exactly at its budget alone', () => {
    expect(budget(194)).toEqual({ texts: [keep.text, lowText], tokens: [10, 182], cuts: [], warnings: [] })
  })

  it('cuts whole lines from the end, saying how many characters went', () => {
    const marker = '[… low: 121 characters omitted to fit the token budget …]'
    expect(budget(130)).toEqual({
      texts: [keep.text, `${'x'.repeat(60)}\n${marker}`],
      tokens: [10, 118],
      cuts: [{ section: 'low', removedChars: 121, dropped: false }],
      warnings: [
        {
          code: 'budget-cut',
          section: 'low',
          message:
            'section "low" (priority 1) lost 121 characters from its end to fit the budget of 130 tokens',
        },
      ],
    })
  })

  it('reduces a section to its marker when no line fits', () => {
    const result = budget(129)
    expect(result.texts[1]).toBe('[… low: 182 characters omitted to fit the token budget …]')
    expect(result.cuts).toEqual([{ section: 'low', removedChars: 182, dropped: true }])
    expect(result.warnings.map((w) => w.message)).toEqual([
      'section "low" (priority 1) was reduced to its marker to fit the budget of 129 tokens',
    ])
    expect(budget(69).tokens).toEqual([10, 57])
  })

  it('throws budget-impossible one token below the cheapest, naming the sections that cannot be cut', () => {
    const error = thrown(() => budget(68))
    expect(error).toBeInstanceOf(CompileError)
    expect(error).toMatchObject({ code: 'budget-impossible', section: undefined })
    expect(error.message).toBe(
      'the token budget of 68 cannot be met: the sections without a priority need 10 tokens ("keep" (10)) and the cut sections, markers and separators at least 59 more; raise budget.maxTokens or give more sections a priority so they can be cut',
    )
    expect(thrown(() => budget(10, [low])).message).toBe(
      'the token budget of 10 cannot be met: the sections without a priority need 0 tokens (none) and the cut sections, markers and separators at least 57 more; raise budget.maxTokens or give more sections a priority so they can be cut',
    )
  })

  it('leaves a section whose marker would cost more than its text', () => {
    const tiny: BudgetSection = { name: 'tiny', text: 'ab', tokens: 2, priority: 1 }
    expect(thrown(() => budget(5, [keep, tiny])).message).toMatch(
      /^the token budget of 5 cannot be met: .* at least 4 more;/,
    )
  })

  it('rejects a budget that is not a number of tokens', () => {
    for (const [maxTokens, shown] of [
      [-1, '-1'],
      [Number.NaN, 'NaN'],
      ['5', '5'],
      [undefined, 'undefined'],
    ] as const) {
      expect(thrown(() => budget(maxTokens as never))).toEqual(
        new TypeError(`budget.maxTokens must be a number >= 0, got ${shown}`),
      )
    }
    expect(budget(0, []).texts).toEqual([])
  })
})

describe('compile: option and tokenizer errors', () => {
  const assembly = (
    sections: Partial<AssembledSection>[],
    extra: Partial<PromptAssembly> = {},
  ): PromptAssembly => ({
    sections: sections.map((s, i) => ({
      name: `s${i}`,
      order: i,
      text: 'x',
      dialect: 'mustache',
      stability: 'static',
      ...s,
    })),
    tools: [],
    variables: {},
    stability: {},
    ...extra,
  })

  it('names a wrong volatile option', () => {
    expect(thrown(() => compile(assembly([{}]), { volatile: 'loud' as never }))).toEqual(
      new TypeError('compile: volatile must be "warn" or "error", got "loud"'),
    )
  })

  it('names an unknown tokenizer or encoding', () => {
    expect(thrown(() => resolveTokenizer('p50k' as never))).toEqual(
      new TypeError('unknown tokenizer "p50k"; use o200k, cl100k, estimate or a Tokenizer object'),
    )
    expect(thrown(() => registerTokenizerLoader('p50k' as never, () => ({}) as never))).toEqual(
      new TypeError('registerTokenizerLoader: unknown encoding "p50k"'),
    )
  })

  it('a turn section: why it goes stale and where its values belong', () => {
    const declared = assembly([{ name: 'clock', text: 'now', stability: 'turn' }])
    expect(compile(declared, { tokenizer: 'estimate' }).warnings).toEqual([
      {
        code: 'turn-in-system-prompt',
        section: 'clock',
        message:
          'section "clock" declares stability "turn": frozen into the system prompt it goes stale and breaks the provider\'s prompt cache when it changes; send the value in the environment-context message (environmentDelta) instead',
      },
    ])
    const referenced = assembly([{ name: 'env', text: '{{system:date}} {{git:branch}}' }], {
      variables: { 'system:date': 'd', 'git:branch': 'b' },
      stability: { 'system:date': 'turn', 'git:branch': 'turn' },
    })
    const error = thrown(() => compile(referenced, { tokenizer: 'estimate', volatile: 'error' }))
    expect(error).toMatchObject({ code: 'turn-in-system-prompt', section: 'env' })
    expect(error.message).toBe(
      'section "env" references "system:date", "git:branch", whose value may change between turns: frozen into the system prompt it goes stale and breaks the provider\'s prompt cache when it changes; send the value in the environment-context message (environmentDelta) instead, or compile with volatile: "warn"',
    )
  })
})

describe('toAnthropic: breakpoint errors', () => {
  it('refuses more breakpoints than Anthropic accepts, and accepts four', () => {
    const compiled = promptOf([
      { name: 'a', text: filler(10) },
      { name: 'b', text: filler(10) },
    ])
    const end = compiled.sections[0]!.end
    expect(thrown(() => toAnthropic(compiled, { breakpoints: [end, end, end, end, end] }))).toEqual(
      new RangeError('toAnthropic: 5 breakpoints asked, Anthropic accepts at most 4'),
    )
    expect(() => toAnthropic(compiled, { breakpoints: [end, end, end, end] })).not.toThrow()
  })
})
