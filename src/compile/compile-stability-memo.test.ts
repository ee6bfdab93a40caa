import { describe, expect, it } from 'vitest'
import type { AssembledSection, PromptAssembly, Stability } from '../registry/types.js'
import { compile } from './compile.js'

// compile remembers each section's effective stability for the content of
// the assembly's variables and stabilities it was computed under. A change
// the memo must not hide: the section's own declared stability, and a key's
// stability when the assembly references more keys than are watched (1024
// per process), where the content number no longer covers every key. The
// tests run in order: the first references no key, the second fills the
// watched keys.

const turnWarnings = (a: PromptAssembly) =>
  compile(a, { tokenizer: 'estimate' })
    .warnings.filter((w) => w.code === 'turn-in-system-prompt')
    .map((w) => w.section)

describe('compile: effective stability after a change the memo does not see', () => {
  it('judges a section anew when only its declared stability changed', () => {
    const declared = (stability: Stability): PromptAssembly => ({
      sections: [{ name: 'clock', order: 0, text: 'Tick.', dialect: 'mustache', stability }],
      tools: [],
      variables: {},
      stability: {},
    })
    expect(turnWarnings(declared('static'))).toEqual([])
    expect(turnWarnings(declared('turn'))).toEqual(['clock'])
    expect(turnWarnings(declared('static'))).toEqual([])
    expect(compile(declared('session')).sections[0]!.stability).toBe('session')
  })

  it("follows a key's stability past the watched keys", () => {
    const many = Array.from({ length: 1024 }, (_, i) => `k${i}`)
    const variables: Record<string, string> = Object.fromEntries(many.map((k) => [k, 'v']))
    const sections: AssembledSection[] = [
      {
        name: 'many',
        order: 0,
        text: many.map((k) => `{{${k}}}`).join(' '),
        dialect: 'mustache',
        stability: 'static',
      },
      { name: 'late', order: 1, text: 'On {{branch}}.', dialect: 'mustache', stability: 'static' },
    ]
    const branch = (stability: Stability): PromptAssembly => ({
      sections,
      tools: [],
      variables: { ...variables, branch: 'main' },
      stability: { branch: stability },
    })
    expect(turnWarnings(branch('session'))).toEqual([])
    expect(turnWarnings(branch('turn'))).toEqual(['late'])
    expect(turnWarnings(branch('session'))).toEqual([])
  })
})
