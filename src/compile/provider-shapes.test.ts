import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Stability, ToolSchema } from '../registry/types.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import { planCache } from './plan-cache.js'
import { toAnthropic, toGemini, toOpenAI } from './provider-shapes.js'

const tools: ToolSchema[] = [
  {
    name: 'read',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
  { name: 'bash', parameters: { type: 'object', additionalProperties: false } },
]

const layered = () =>
  promptOf(
    [
      { name: 'identity', text: filler(1200) },
      { name: 'guidance', text: 'Use the tools.' },
      { name: 'project', text: 'Project notes.', stability: 'session' },
      { name: 'clock', text: 'Turn data.', stability: 'turn' },
    ],
    { tools },
  )

describe('toAnthropic', () => {
  it('splits at section boundaries, each separator ending the block before it', () => {
    const compiled = layered()
    const { system } = toAnthropic(compiled)
    expect(system.map((b) => b.text)).toEqual([
      `${filler(1200)}\n\n`,
      'Use the tools.\n\n',
      'Project notes.\n\n',
      'Turn data.',
    ])
    expect(system.map((b) => b.text).join('')).toBe(compiled.text)
    expect(system.every((b) => b.type === 'text')).toBe(true)
  })

  it('marks the blocks ending at the planned breakpoints whose prefix reaches the minimum', () => {
    const compiled = layered()
    expect(planCache(compiled, { provider: 'anthropic' }).breakpoints).toHaveLength(2)
    const marked = toAnthropic(compiled, { minTokens: 1 }).system.map((b) => b.cache_control)
    expect(marked).toEqual([undefined, { type: 'ephemeral' }, { type: 'ephemeral' }, undefined])
    expect('cache_control' in toAnthropic(compiled, { minTokens: 1 }).system[0]!).toBe(false)
  })

  it('puts no cache_control on a prefix below the minimum (one verdict with planCache)', () => {
    const compiled = promptOf([
      { name: 'identity', text: 'You are a coding agent.', order: -100 },
      { name: 'project', text: 'Project notes.', order: 200, stability: 'session' },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4-5' })
    expect(plan.marks).toEqual([])
    expect(plan.warnings.map((w) => w.code)).toContain('below-cache-minimum')
    expect(toAnthropic(compiled).system.some((b) => b.cache_control !== undefined)).toBe(false)
    expect(toAnthropic(compiled, { model: 'claude-sonnet-4-5' }).system.some((b) => b.cache_control)).toBe(
      false,
    )
    // The harness's own share before the prompt counts towards the minimum.
    const withBase = toAnthropic(compiled, { model: 'claude-sonnet-4-5', baseTokens: 2000 })
    expect(withBase.system.filter((b) => b.cache_control !== undefined)).toHaveLength(2)
  })

  it('keeps only the number of marks asked, stable prefix first', () => {
    const compiled = layered()
    expect(
      toAnthropic(compiled, { breakpoints: 1, minTokens: 1 }).system.map(
        (b) => b.cache_control !== undefined,
      ),
    ).toEqual([false, true, false, false])
    expect(toAnthropic(compiled, { breakpoints: 0 }).system.some((b) => b.cache_control)).toBe(false)
  })

  it('takes explicit positions at section ends or block ends', () => {
    const compiled = layered()
    const [identity, guidance] = compiled.sections
    const system = toAnthropic(compiled, { breakpoints: [identity!.end, guidance!.end + 2] }).system
    expect(system.map((b) => b.cache_control !== undefined)).toEqual([true, true, false, false])
  })

  it('refuses a position inside a section, and more than 4 positions', () => {
    const compiled = layered()
    expect(() => toAnthropic(compiled, { breakpoints: [5] })).toThrow(/not at a section end/)
    const ends = compiled.sections.map((s) => s.end)
    expect(() => toAnthropic(compiled, { breakpoints: [...ends, compiled.text.length, 1] })).toThrow(
      /at most 4/,
    )
  })

  it('shapes tools in compiled order, without a description key when there is none', () => {
    const shape = toAnthropic(layered())
    expect(shape.tools).toEqual([
      { name: 'read', description: 'Read a file', input_schema: tools[0]!.parameters },
      { name: 'bash', input_schema: tools[1]!.parameters },
    ])
    expect(Object.keys(shape.tools![1]!)).toEqual(['name', 'input_schema'])
    expect(Object.keys(shape.tools![0]!)).toEqual(['name', 'description', 'input_schema'])
  })

  it('copies schemas, so a request that edits them leaves the compiled prompt alone', () => {
    const compiled = layered()
    const shape = toAnthropic(compiled)
    ;(shape.tools![0]!.input_schema as { type: string }).type = 'changed'
    expect(compiled.tools[0]!.schema.parameters.type).toBe('object')
  })

  it('gives no blocks and no tools key for an empty prompt without tools', () => {
    expect(toAnthropic(promptOf([]))).toEqual({ system: [] })
  })
})

describe('toOpenAI', () => {
  it('sends the whole text as one system message by default, or as developer', () => {
    const compiled = layered()
    expect(toOpenAI(compiled).message).toEqual({ role: 'system', content: compiled.text })
    expect(toOpenAI(compiled, { role: 'developer' }).message.role).toBe('developer')
  })

  it('shapes function tools in compiled order', () => {
    expect(toOpenAI(layered()).tools).toEqual([
      {
        type: 'function',
        function: { name: 'read', description: 'Read a file', parameters: tools[0]!.parameters },
      },
      { type: 'function', function: { name: 'bash', parameters: tools[1]!.parameters } },
    ])
  })

  it('omits tools when there are none (OpenAI rejects an empty array)', () => {
    expect('tools' in toOpenAI(promptOf([{ name: 'a', text: 'x' }]))).toBe(false)
  })
})

describe('toGemini', () => {
  it('sends the text as one part and declarations with JSON Schema parameters', () => {
    const compiled = layered()
    expect(toGemini(compiled)).toEqual({
      systemInstruction: { parts: [{ text: compiled.text }] },
      tools: [
        {
          functionDeclarations: [
            { name: 'read', description: 'Read a file', parametersJsonSchema: tools[0]!.parameters },
            { name: 'bash', parametersJsonSchema: tools[1]!.parameters },
          ],
        },
      ],
    })
  })

  it('omits the tools entry when there are none', () => {
    expect(toGemini(promptOf([{ name: 'a', text: 'x' }]))).toEqual({
      systemInstruction: { parts: [{ text: 'x' }] },
    })
  })
})

describe('provider shapes reassemble the text exactly', () => {
  it('for random section texts and stabilities', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replaceAll('{', '('))
    const section = fc.record({ text, stability: fc.constantFrom<Stability>('static', 'session', 'turn') })
    fc.assert(
      fc.property(fc.array(section, { maxLength: 6 }), fc.integer({ min: 0, max: 6 }), (sections, asked) => {
        const compiled = promptOf(sections.map((s, i) => ({ name: `s${i}`, ...s })))
        const anthropic = toAnthropic(compiled, { breakpoints: asked })
        expect(anthropic.system.map((b) => b.text).join('')).toBe(compiled.text)
        expect(anthropic.system).toHaveLength(compiled.sections.length)
        expect(anthropic.system.filter((b) => b.cache_control).length).toBeLessThanOrEqual(Math.min(asked, 4))
        expect(anthropic.system.every((b) => b.text.length > 0)).toBe(true)
        expect(toOpenAI(compiled).message.content).toBe(compiled.text)
        expect(toGemini(compiled).systemInstruction.parts[0].text).toBe(compiled.text)
      }),
    )
  })
})
