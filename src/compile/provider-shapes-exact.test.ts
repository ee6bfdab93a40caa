import { describe, expect, it } from 'vitest'
import type { ToolSchema } from '../registry/types.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import { toAnthropic, toGemini, toOpenAI } from './provider-shapes.js'

// The request fields each provider receives, whole: what a harness sends as is.

const tools: ToolSchema[] = [
  {
    name: 'read',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
  { name: 'bash', parameters: { type: 'object' } },
]

describe('provider shapes, exactly', () => {
  const compiled = promptOf(
    [
      { name: 'a', text: 'One.' },
      { name: 'b', text: 'Two.' },
    ],
    { tools },
  )

  it('OpenAI: one system (or developer) message, and function tools', () => {
    expect(toOpenAI(compiled)).toEqual({
      message: { role: 'system', content: 'One.\n\nTwo.' },
      tools: [
        {
          type: 'function',
          function: {
            name: 'read',
            description: 'Read a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
        },
        { type: 'function', function: { name: 'bash', parameters: { type: 'object' } } },
      ],
    })
    expect(Object.keys(toOpenAI(compiled).tools![1]!.function)).toEqual(['name', 'parameters'])
    expect(toOpenAI(promptOf([{ name: 'a', text: 'x' }]), { role: 'developer' })).toEqual({
      message: { role: 'developer', content: 'x' },
    })
  })

  it('Gemini: one part, and one declaration list', () => {
    expect(toGemini(compiled)).toEqual({
      systemInstruction: { parts: [{ text: 'One.\n\nTwo.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'read',
              description: 'Read a file',
              parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } } },
            },
            { name: 'bash', parametersJsonSchema: { type: 'object' } },
          ],
        },
      ],
    })
    expect(toGemini(promptOf([{ name: 'a', text: 'x' }]))).toEqual({
      systemInstruction: { parts: [{ text: 'x' }] },
    })
  })

  it('Anthropic: a block per section, its tools, and schemas the caller may change', () => {
    const shape = toAnthropic(compiled, { breakpoints: [] })
    expect(shape).toEqual({
      system: [
        { type: 'text', text: 'One.\n\n' },
        { type: 'text', text: 'Two.' },
      ],
      tools: [
        {
          name: 'read',
          description: 'Read a file',
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        },
        { name: 'bash', input_schema: { type: 'object' } },
      ],
    })
    ;(shape.tools![1]!.input_schema as Record<string, unknown>).type = 'changed'
    expect(toAnthropic(compiled, { breakpoints: [] }).tools![1]!.input_schema).toEqual({ type: 'object' })
  })

  it('Anthropic: an empty prompt has no blocks, and no position to mark', () => {
    const empty = promptOf([])
    expect(toAnthropic(empty)).toEqual({ system: [] })
    expect(() => toAnthropic(empty, { breakpoints: [0] })).toThrow(
      new RangeError('toAnthropic: breakpoint 0 not at a section end; valid positions: none (empty prompt)'),
    )
    expect(() => toAnthropic(compiled, { breakpoints: [1, 2] })).toThrow(
      new RangeError('toAnthropic: breakpoints 1, 2 not at a section end; valid positions: 4, 10'),
    )
  })

  it('Anthropic: a count keeps that many planned marks, none for zero or less', () => {
    const layered = promptOf([
      { name: 'identity', text: filler(1200) },
      { name: 'project', text: filler(100), stability: 'session' },
    ])
    const marked = (breakpoints?: number) =>
      toAnthropic(layered, {
        minTokens: 1000,
        ...(breakpoints === undefined ? {} : { breakpoints }),
      }).system.map((b) => b.cache_control !== undefined)
    expect(marked()).toEqual([true, true])
    expect(marked(5)).toEqual([true, true])
    expect(marked(1)).toEqual([true, false])
    expect(marked(0)).toEqual([false, false])
    expect(marked(-1)).toEqual([false, false])
    // The harness share counts towards the minimum.
    expect(
      toAnthropic(layered, { minTokens: 1400, baseTokens: 150 }).system.map((b) => b.cache_control),
    ).toEqual([undefined, { type: 'ephemeral' }])
  })
})
