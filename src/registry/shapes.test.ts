import { describe, expect, it } from 'vitest'
import { createPromptRegistry } from './create-registry.js'
import { RegistryError } from './errors.js'

/** The RegistryError a call throws or an assembly rejects with. */
async function refusal(run: () => unknown): Promise<RegistryError> {
  try {
    await run()
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryError)
    return error as RegistryError
  }
  throw new Error('expected a RegistryError')
}

// Plugins written in plain JavaScript get no help from the types; these are
// the shapes users actually pass by mistake.
const loose = (value: unknown) => value as never

describe('a registration of the wrong shape is invalid-registration naming the expected key', () => {
  it('a tool provider returning { tools } instead of { schemas }', async () => {
    const registry = createPromptRegistry()
    registry.tools(loose(() => ({ tools: [{ name: 'read', parameters: {} }] })))
    const error = await refusal(() => registry.assemble())
    expect(error.code).toBe('invalid-registration')
    expect(error.message).toContain('expected key "schemas"')
    expect(error.message).toContain('"tools"')
  })

  it('a tool provider that is not a function, a schema without name or parameters', async () => {
    const registry = createPromptRegistry()
    expect((await refusal(() => registry.tools(loose({ schemas: [] })))).code).toBe('invalid-registration')
    registry.tools(loose(() => ({ schemas: [{ description: 'no name' }] })))
    expect((await refusal(() => registry.assemble())).message).toContain('expected key "name"')
    const other = createPromptRegistry()
    other.tools(loose(() => ({ schemas: [{ name: 'x' }] })))
    expect((await refusal(() => other.assemble())).message).toContain('expected key "parameters"')
  })

  it('a section with content instead of text, a missing order, a wrong stability', async () => {
    const registry = createPromptRegistry()
    const noText = await refusal(() => registry.section(loose({ name: 'a', order: 1, content: 'x' })))
    expect(noText.code).toBe('invalid-registration')
    expect(noText.message).toMatch(/section "a": expected key "text".*"content"/)
    expect((await refusal(() => registry.section(loose({ name: 'a', text: 'x' })))).message).toContain(
      'expected key "order"',
    )
    expect((await refusal(() => registry.section(loose({ order: 1, text: 'x' })))).message).toContain(
      'expected key "name"',
    )
    expect(
      (await refusal(() => registry.section(loose({ name: 'a', order: 1, text: 'x', stability: 'forever' }))))
        .message,
    ).toContain('"stability"')
    expect((await refusal(() => registry.section(loose('text')))).code).toBe('invalid-registration')
    // Nothing was registered by the refused calls.
    expect((await registry.assemble()).sections.map((s) => s.name)).toEqual([
      'harness:identity',
      'deployment:persona',
    ])
  })

  it('a variable given a value instead of a provider, or a bad stability', async () => {
    const registry = createPromptRegistry()
    const value = await refusal(() => registry.variable('model', loose('gpt-5')))
    expect(value.code).toBe('invalid-registration')
    expect(value.message).toContain('() => value')
    expect(
      (await refusal(() => registry.variable('model', () => 'x', loose({ stability: 'daily' })))).message,
    ).toContain('"stability"')
    // A refused registration leaves the name free.
    registry.variable('model', () => 'x')
  })
})
