import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import type { AssembledSection, PromptAssembly } from '../registry/types.js'
import { applyBudget, budgetMarker } from './budget.js'
import { compile } from './compile.js'
import { CompileError } from './errors.js'
import { estimate, resolveTokenizer } from './tokenizers.js'
import type { CompiledPrompt, Tokenizer } from './types.js'

function section(name: string, text: string, priority?: number): AssembledSection {
  return {
    name,
    order: 0,
    text,
    dialect: 'mustache',
    stability: 'static',
    ...(priority === undefined ? {} : { priority }),
  }
}

function assembly(sections: AssembledSection[]): PromptAssembly {
  return { sections, tools: [], variables: {}, stability: {} }
}

/** One token per character: budgets become easy to reason about. */
const chars: Tokenizer = { name: 'chars', count: (text) => text.length }

const lines = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix} line ${i}`).join('\n')

function sliceOf(c: CompiledPrompt, name: string): string {
  const s = c.sections.find((x) => x.name === name)!
  return c.text.slice(s.start, s.end)
}

function compileError(run: () => unknown): CompileError {
  try {
    run()
  } catch (error) {
    if (error instanceof CompileError) return error
    throw error
  }
  throw new Error('expected a CompileError')
}

describe('budgets', () => {
  it('leaves a prompt within its budget alone', () => {
    const a = assembly([section('a', lines('a', 5), 1)])
    const c = compile(a, { tokenizer: chars, budget: { maxTokens: 1000 } })
    expect(c.cuts).toEqual([])
    expect(c.text).toBe(lines('a', 5))
  })

  it('cuts whole lines from the end of the lowest priority first, leaving a marker line', () => {
    const a = assembly([
      section('keep', lines('k', 10)),
      section('low', lines('low', 40), 1),
      section('high', lines('h', 40), 5),
    ])
    const full = compile(a, { tokenizer: chars })
    const maxTokens = full.tokens - 200
    const c = compile(a, { tokenizer: chars, budget: { maxTokens } })
    expect(c.tokens).toBeLessThanOrEqual(maxTokens)
    expect(c.cuts).toHaveLength(1)
    const [cut] = c.cuts
    expect(cut).toMatchObject({ section: 'low', dropped: false })
    const low = sliceOf(c, 'low')
    const kept = low.slice(0, low.lastIndexOf('\n'))
    expect(lines('low', 40).startsWith(`${kept}\n`)).toBe(true)
    const removed = lines('low', 40).slice(kept.length + 1)
    expect(cut!.removedChars).toBe(removed.length)
    expect(low.slice(kept.length + 1)).toBe(
      `[… low: ${removed.length} characters omitted to fit the token budget …]`,
    )
    expect(sliceOf(c, 'high')).toBe(lines('h', 40))
    expect(c.warnings).toEqual([expect.objectContaining({ code: 'budget-cut', section: 'low' })])
  })

  it('describes the cut text in spans, hashes, bytes and tokens', () => {
    const a = assembly([section('a', lines('a', 30), 1), section('b', 'tail')])
    const c = compile(a, { tokenizer: chars, budget: { maxTokens: 200 }, exactTokens: true })
    const reference = compile(assembly([section('a', sliceOf(c, 'a')), section('b', 'tail')]), {
      tokenizer: chars,
    })
    expect(c.text).toBe(reference.text)
    expect(c.hash).toBe(reference.hash)
    expect(c.bytes).toBe(reference.bytes)
    expect(c.sections).toEqual(reference.sections)
    expect(c.tokens).toBe(reference.tokens)
    expect(c.exactTokens).toBe(c.text.length)
  })

  it('reduces a section to its marker when no line of it fits, then moves on', () => {
    const a = assembly([
      section('first', lines('f', 20), 2),
      section('second', lines('s', 20), 1),
      section('fixed', 'x'),
    ])
    const full = compile(a, { tokenizer: chars })
    const second = full.sections[1]!
    const c = compile(a, { tokenizer: chars, budget: { maxTokens: full.tokens - second.tokens - 30 } })
    expect(c.cuts.map((x) => [x.section, x.dropped])).toEqual([
      ['second', true],
      ['first', false],
    ])
    expect(sliceOf(c, 'second')).toBe(budgetMarker('second', lines('s', 20).length))
  })

  it('cuts the later section first on equal priorities, so the cached prefix moves last', () => {
    const a = assembly([section('early', lines('e', 20), 3), section('late', lines('l', 20), 3)])
    const full = compile(a, { tokenizer: chars })
    const c = compile(a, { tokenizer: chars, budget: { maxTokens: full.tokens - 50 } })
    expect(c.cuts.map((x) => x.section)).toEqual(['late'])
    expect(sliceOf(c, 'early')).toBe(lines('e', 20))
  })

  it('never cuts a section without a priority, and says when the rest cannot fit', () => {
    const a = assembly([section('fixed', lines('f', 50)), section('cuttable', lines('c', 50), 1)])
    const fixed = compile(assembly([section('fixed', lines('f', 50))]), { tokenizer: chars }).tokens
    const error = compileError(() => compile(a, { tokenizer: chars, budget: { maxTokens: fixed - 1 } }))
    expect(error.code).toBe('budget-impossible')
    expect(error.message).toContain('"fixed"')
    expect(error.message).toMatch(/raise budget\.maxTokens/)
  })

  it('leaves alone a section whose marker would cost more than its text', () => {
    const a = assembly([section('tiny', 'ok', 1), section('big', lines('b', 40), 2)])
    const full = compile(a, { tokenizer: chars })
    const c = compile(a, { tokenizer: chars, budget: { maxTokens: full.tokens - 20 } })
    expect(c.cuts.map((x) => x.section)).toEqual(['big'])
    expect(sliceOf(c, 'tiny')).toBe('ok')
  })

  it('never splits a character: removed characters are code points', () => {
    const text = Array.from({ length: 5 }, (_, i) => `${'😀'.repeat(10)} line ${i}`).join('\n')
    const a = assembly([section('emoji', text, 1)])
    const c = compile(a, { tokenizer: chars, budget: { maxTokens: 120 } })
    expect(c.cuts).toHaveLength(1)
    const [cut] = c.cuts
    const removed = text.slice(sliceOf(c, 'emoji').lastIndexOf('\n') + 1)
    expect(cut!.removedChars).toBe([...removed].length)
    expect(sliceOf(c, 'emoji')).toContain(`${[...removed].length} characters omitted`)
  })

  it('finds the cut in O(log lines) counts', () => {
    let calls = 0
    const counting: Tokenizer = {
      name: 'counting',
      count: (text) => {
        calls++
        return text.length
      },
    }
    const big = lines('x', 4096)
    const out = applyBudget([{ name: 'x', text: big, tokens: big.length, priority: 1 }], 20_000, counting, 2)
    expect(out.texts[0]!.length).toBeLessThanOrEqual(20_000)
    expect(calls).toBeLessThanOrEqual(16)
  })

  it('rejects a budget that is not a number', () => {
    expect(() => applyBudget([], Number.NaN, estimate, 1)).toThrow(TypeError)
  })
})

describe('budgets: properties', () => {
  const line = fc.oneof(
    fc.string({ minLength: 10, maxLength: 80 }),
    fc.constantFrom('', '😀 emoji line', 'ünïcödé', '<|endoftext|>', '  indented'),
  )
  const sectionArb = fc.record({
    lines: fc.array(
      line.map((l) => l.replaceAll('\n', ' ').replaceAll('\r', ' ').replaceAll('{', '(')),
      {
        minLength: 1,
        maxLength: 30,
      },
    ),
    priority: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined, freq: 4 }),
  })

  for (const tokenizer of ['estimate', 'o200k'] as const) {
    it(`fits the budget or throws budget-impossible, never splitting a line (${tokenizer})`, () => {
      fc.assert(
        fc.property(
          fc.array(sectionArb, { minLength: 1, maxLength: 6 }),
          fc.integer({ min: 20, max: 105 }),
          (specs, percent) => {
            const a = assembly(specs.map((s, i) => section(`s${i}`, s.lines.join('\n'), s.priority)))
            const full = compile(a, { tokenizer })
            const maxTokens = Math.floor((full.tokens * percent) / 100)
            let c: CompiledPrompt
            try {
              c = compile(a, { tokenizer, budget: { maxTokens } })
            } catch (error) {
              expect(error).toBeInstanceOf(CompileError)
              expect((error as CompileError).code).toBe('budget-impossible')
              // Even every cuttable section at its cheapest (text or marker) leaves it over.
              const t = resolveTokenizer(tokenizer)
              let floor = (full.sections.length - 1) * t.count('\n\n')
              for (const s of full.sections) {
                const marker = budgetMarker(s.name, [...full.text.slice(s.start, s.end)].length)
                const priority = specs[Number(s.name.slice(1))]!.priority
                floor += priority === undefined ? s.tokens : Math.min(s.tokens, t.count(marker))
              }
              expect(floor).toBeGreaterThan(maxTokens)
              return
            }
            expect(c.tokens).toBeLessThanOrEqual(maxTokens)
            expect(c.sections.map((s) => s.name)).toEqual(full.sections.map((s) => s.name))
            for (const s of c.sections) {
              const original = full.text.slice(...spanOf(full, s.name))
              const now = c.text.slice(s.start, s.end)
              const cut = c.cuts.find((x) => x.section === s.name)
              if (cut === undefined) {
                expect(now).toBe(original)
                continue
              }
              expect(specs[Number(s.name.slice(1))]!.priority).not.toBeUndefined()
              const marker = budgetMarker(s.name, cut.removedChars)
              if (cut.dropped) expect(now).toBe(marker)
              else {
                expect(now.endsWith(`\n${marker}`)).toBe(true)
                const kept = now.slice(0, now.length - marker.length)
                expect(original.startsWith(kept)).toBe(true)
                expect(cut.removedChars).toBe([...original.slice(kept.length)].length)
              }
              expect(now).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
            }
          },
        ),
        { numRuns: propertyRuns(tokenizer === 'o200k' ? 100 : 300) },
      )
    })
  }
})

function spanOf(c: CompiledPrompt, name: string): [number, number] {
  const s = c.sections.find((x) => x.name === name)!
  return [s.start, s.end]
}

describe('applyBudget: edges', () => {
  /** The characters a cut reports for `text`, when the whole section is reduced to its marker. */
  const removedOf = (text: string): number => {
    const padded = `${text}${'x'.repeat(200)}`
    const result = applyBudget(
      [{ name: 's', text: padded, tokens: padded.length, priority: 1 }],
      100,
      chars,
      0,
    )
    expect(result.cuts).toHaveLength(1)
    expect(result.cuts[0]!.dropped).toBe(true)
    return result.cuts[0]!.removedChars - 200
  }

  it('counts a surrogate pair as one character and a lone surrogate as one, at every edge of the ranges', () => {
    const texts = [
      '\ud800\udc00',
      '\udbff\udfff',
      '\ud800\udfff',
      '\udbff\udc00',
      '\ud7ff\udc00',
      '\ue000\udc00',
      'a\udc00',
      '\udc00\udc00',
      '\ud800\udbff',
      '\ud800\ue000',
      '\ud800a',
      '\ud800\ud800\udc00',
      'ab😀c',
    ]
    for (const text of texts) expect([text, removedOf(text)]).toEqual([text, [...text].length])
  })

  it('keeps the first line when it alone fits beside the marker', () => {
    const text = `first line\n${'x'.repeat(300)}`
    const marker = budgetMarker('s', 300)
    const result = applyBudget(
      [{ name: 's', text, tokens: text.length, priority: 1 }],
      'first line\n'.length + marker.length,
      chars,
      0,
    )
    expect(result.texts).toEqual([`first line\n${marker}`])
    expect(result.cuts).toEqual([{ section: 's', removedChars: 300, dropped: false }])
  })

  it('leaves a section alone when its marker costs exactly as much as its text, and cuts the next one', () => {
    let length = 1
    while (budgetMarker('a', length).length !== length) length++
    const a = 'a'.repeat(length)
    const b = lines('b', 20)
    const result = applyBudget(
      [
        { name: 'a', text: a, tokens: a.length, priority: 1 },
        { name: 'b', text: b, tokens: b.length, priority: 2 },
      ],
      a.length + b.length - 50,
      chars,
      0,
    )
    expect(result.texts[0]).toBe(a)
    expect(result.cuts.map((c) => c.section)).toEqual(['b'])
  })

  it('lists each section without a priority, with its tokens, when they alone do not fit', () => {
    const one = lines('o', 3)
    const two = lines('t', 4)
    const error = compileError(() =>
      applyBudget(
        [
          { name: 'one', text: one, tokens: one.length },
          { name: 'two', text: two, tokens: two.length },
        ],
        5,
        chars,
        0,
      ),
    )
    expect(error.message).toContain(
      `need ${one.length + two.length} tokens ("one" (${one.length}), "two" (${two.length}))`,
    )
  })

  it('says "none" when every section has a priority and their markers still do not fit', () => {
    const text = lines('c', 20)
    const error = compileError(() =>
      applyBudget([{ name: 'c', text, tokens: text.length, priority: 1 }], 5, chars, 0),
    )
    expect(error.code).toBe('budget-impossible')
    expect(error.message).toMatch(
      /the sections without a priority need 0 tokens \(none\) and the cut sections/,
    )
  })

  it('counts a section shrunk for the same budget again from its memo, running the tokenizer no more', () => {
    let calls = 0
    const counting: Tokenizer = {
      name: 'counting-memo',
      count: (text) => {
        calls++
        return text.length
      },
    }
    const text = lines('m', 40)
    const run = () => applyBudget([{ name: 'm', text, tokens: text.length, priority: 1 }], 200, counting, 0)
    const first = run()
    const after = calls
    expect(after).toBeGreaterThan(0)
    expect(run()).toEqual(first)
    expect(calls).toBe(after)
  })
})
