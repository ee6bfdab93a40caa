import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPromptRegistry } from '../registry/create-registry.js'
import { renderSections } from '../registry/render-prompt.js'
import { slotAt, slotsOf } from '../registry/section-slot.js'
import type { PromptAssembly, PromptRegistry, ToolSchema } from '../registry/types.js'
import { canonicalJson } from '../shared/hash.js'
import { compile } from './compile.js'
import { renderSection } from './section-memo.js'
import { effectiveStability } from './stability.js'
import type { CompiledPrompt, Tokenizer } from './types.js'

// The recompile memos (per registration slot, per section text, per tool name,
// the last layouts) must never change a result: every compile here is checked
// against a reference computed from scratch, with no memo involved.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
const nodeSha: (text: string) => string = (text) => sha256(text)
const otherSha: (text: string) => string = (text) => sha256(text)

/** Two tokenizers that count differently, so a memo keyed by the wrong one shows. */
const words: Tokenizer = { name: 'words', count: (t) => t.split(/\s+/).filter(Boolean).length }
const chars: Tokenizer = { name: 'chars', count: (t) => t.length }

/** What compile must produce, computed without memos. */
function reference(assembly: PromptAssembly, tokenizer: Tokenizer) {
  const rendered = renderSections(assembly)
  const text = rendered.map((r) => r.text).join('\n\n')
  let offset = 0
  const sections = rendered.map((r, i) => {
    if (i > 0) offset += 2
    const start = offset
    offset += r.text.length
    return {
      name: r.section.name,
      order: r.section.order,
      stability: effectiveStability(r.section, assembly).stability,
      start,
      end: offset,
      tokens: tokenizer.count(r.text),
      hash: `sha256:${sha256(r.text)}`,
    }
  })
  const tools = assembly.tools.map((schema) => ({
    name: schema.name,
    hash: `sha256:${sha256(canonicalJson(schema))}`,
  }))
  const separators = Math.max(0, sections.length - 1) * tokenizer.count('\n\n')
  return {
    text,
    hash: `sha256:${sha256(text)}`,
    tokens: sections.reduce((n, s) => n + s.tokens, 0) + separators,
    sections,
    tools,
    toolsHash: `sha256:${sha256(canonicalJson(tools))}`,
  }
}

function summary(compiled: CompiledPrompt) {
  return {
    text: compiled.text,
    hash: compiled.hash,
    tokens: compiled.tokens,
    sections: compiled.sections.map(({ name, order, stability, start, end, tokens, hash }) => ({
      name,
      order,
      stability,
      start,
      end,
      tokens,
      hash,
    })),
    tools: compiled.tools.map(({ name, hash }) => ({ name, hash })),
    toolsHash: compiled.toolsHash,
  }
}

/** A registry whose section texts, variable values and tool schemas are read from `state` on every assembly. */
function harness(state: {
  texts: string[]
  values: (string | undefined)[]
  tools: ToolSchema[]
}): PromptRegistry {
  const registry = createPromptRegistry({ identity: 'You are the memo harness.' })
  state.values.forEach((_, v) => {
    registry.variable(`v${v}`, () => state.values[v], { stability: v === 3 ? 'static' : 'session' })
  })
  state.texts.forEach((_, k) => {
    registry.section({ name: `s${k}`, order: 10 + k, text: () => state.texts[k]! })
  })
  registry.tools(() => ({ schemas: state.tools }))
  return registry
}

const tool = (name: string, description: string): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
})

describe('recompile memos', () => {
  it('an unchanged section returns the identical memo, and an unchanged recompile the same result', async () => {
    const state = {
      texts: ['One {{v0}}.', 'Two {{#if v1}}yes{{/if}}.'],
      values: ['a', 'b', undefined, 'd'],
      tools: [tool('read', 'Reads')],
    }
    const registry = harness(state)
    const first = await registry.assemble()
    const second = await registry.assemble()
    for (let i = 0; i < first.sections.length; i++) {
      const a = renderSection(first.sections[i]!, first, slotAt(slotsOf(first.sections), first.sections, i))
      const b = renderSection(
        second.sections[i]!,
        second,
        slotAt(slotsOf(second.sections), second.sections, i),
      )
      expect(b).toBe(a)
    }
    const options = { tokenizer: words, hash: nodeSha }
    expect(summary(compile(second, options))).toEqual(summary(compile(first, options)))
    expect(summary(compile(second, options))).toEqual(reference(second, words))
  })

  it('a changed text, variable value, tool schema (in place), order or option invalidates', async () => {
    const state = {
      texts: ['One {{v0}}.', 'Two {{#if v1}}yes{{/if}}.', 'Three.'],
      values: ['a', 'b', undefined, 'd'],
      tools: [tool('read', 'Reads'), tool('write', 'Writes')],
    }
    const registry = harness(state)
    const check = async (tokenizer: Tokenizer = words, hash = nodeSha) => {
      const assembly = await registry.assemble()
      const compiled = compile(assembly, { tokenizer, hash })
      expect(summary(compiled)).toEqual(reference(assembly, tokenizer))
      return compiled
    }
    const base = await check()

    state.texts[1] = 'Two changed {{#if v1}}yes{{/if}}.'
    const text = await check()
    expect(text.sections[2]!.hash).not.toBe(base.sections[2]!.hash)

    state.values[1] = undefined
    const value = await check()
    expect(value.text).toContain('Two changed .')

    state.tools[0]!.parameters.required = ['path', 'limit']
    const schema = await check()
    expect(schema.tools[0]!.hash).not.toBe(base.tools[0]!.hash)
    state.tools[0]!.parameters.required = ['path']
    expect((await check()).tools[0]!.hash).toBe(base.tools[0]!.hash)

    // Order: the same texts registered in reverse order.
    const reversed = createPromptRegistry({ identity: 'You are the memo harness.' })
    for (const [i, v] of state.values.entries()) reversed.variable(`v${i}`, () => v)
    for (const [k, t] of state.texts.entries()) reversed.section({ name: `s${k}`, order: 10 - k, text: t })
    const flipped = await reversed.assemble()
    expect(summary(compile(flipped, { tokenizer: words }))).toEqual(reference(flipped, words))

    // Options: another tokenizer, another hash function object.
    const counted = await check(chars)
    expect(counted.tokens).not.toBe(value.tokens)
    await check(words, otherSha)
  })

  it('a middleware that reorders, swaps or rewrites sections in place is compiled as it left them', async () => {
    const state = {
      texts: ['Alpha {{v0}}.', 'Beta.', 'Gamma {{v2}}.'],
      values: ['a', 'b', 'c', 'd'],
      tools: [],
    }
    const registry = harness(state)
    let mode = 0
    registry.use(async (assembly, _ctx, next) => {
      if (mode === 1) assembly.sections.reverse()
      if (mode === 2) assembly.sections[1] = { ...assembly.sections[2]!, name: 'swapped' }
      if (mode === 3) assembly.sections[2]!.text = 'Rewritten {{v1}}.'
      return next()
    })
    for (const m of [0, 1, 0, 2, 0, 3, 0]) {
      mode = m
      const assembly = await registry.assemble()
      expect(summary(compile(assembly, { tokenizer: words }))).toEqual(reference(assembly, words))
    }
  })

  it('a schema whose keys are partly inherited is hashed by its own keys, never as a known one', () => {
    const own = (parameters: Record<string, unknown>): ToolSchema => ({ name: 'inherits', parameters })
    const expected = (schema: ToolSchema) => `sha256:${sha256(canonicalJson(schema))}`
    const plain = own({ type: 'object', extra: 1 })
    const inherited = own(Object.assign(Object.create({ extra: 1 }), { type: 'object' }))
    const assembly = (tools: ToolSchema[]): PromptAssembly => ({
      sections: [],
      tools,
      variables: {},
      stability: {},
    })
    expect(compile(assembly([plain]), { tokenizer: words }).tools[0]!.hash).toBe(expected(plain))
    expect(compile(assembly([inherited]), { tokenizer: words }).tools[0]!.hash).toBe(expected(inherited))
    const bare = own({ type: 'object' })
    const first = compile(assembly([bare]), { tokenizer: words }).tools[0]!.hash
    // A polluted Object.prototype must not make `extra` look like an own key of a plain object either.
    Object.defineProperty(Object.prototype, 'extra', {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    })
    try {
      expect(compile(assembly([own({ type: 'object' })]), { tokenizer: words }).tools[0]!.hash).toBe(first)
      expect(compile(assembly([plain]), { tokenizer: words }).tools[0]!.hash).toBe(expected(plain))
    } finally {
      delete (Object.prototype as Record<string, unknown>).extra
    }
    expect(first).toBe(expected(bare))
  })

  it('variables or stabilities changed in place after assembly, and registries interleaving, compile as from scratch', async () => {
    // The memos skip reading a section's keys while the assembly's variables and stabilities hold
    // what an earlier compile saw: a change made to the assembly itself must still be seen.
    const texts = ['One {{v0}}.', 'Two {{#if v1}}yes{{/if}}.', 'Three {{v3}}.']
    const first = harness({ texts: [...texts], values: ['a', 'b', undefined, 'd'], tools: [] })
    const second = harness({ texts: [...texts], values: ['x', undefined, undefined, 'd'], tools: [] })
    const check = (assembly: PromptAssembly) =>
      expect(summary(compile(assembly, { tokenizer: words }))).toEqual(reference(assembly, words))
    const mutations: ((a: PromptAssembly) => void)[] = [
      () => {},
      (a) => {
        a.variables.v0 = 'changed'
      },
      (a) => {
        a.variables.v1 = undefined
      },
      (a) => {
        delete a.variables.v2
      },
      (a) => {
        a.variables.extra = 'added'
      },
      (a) => {
        a.stability.v3 = 'turn'
      },
      (a) => {
        a.stability.v0 = 'static'
      },
      (a) => {
        Object.defineProperty(a.variables, 'v1', { value: 'hidden', enumerable: false })
      },
    ]
    for (let round = 0; round < 2; round++) {
      for (const mutate of mutations) {
        for (const registry of [first, second]) {
          check(await registry.assemble())
          const assembly = await registry.assemble()
          mutate(assembly)
          check(assembly)
          check(await registry.assemble())
        }
      }
    }
    // A referenced key gone from the assembly is unknown again, as from scratch (strict mustache).
    const gone = await first.assemble()
    delete gone.variables.v1
    expect(() => compile(gone, { tokenizer: words })).toThrow(/unknown variable "v1"/)
  })

  it('a key first referenced after an unchanged recompile, then changed in place, is seen', async () => {
    // An epoch stands for the values of the keys some memo references: a key referenced for the
    // first time must not leave an epoch taken without it matching an assembly where only it changed.
    const state = { text: 'Plain {{w0}}.' }
    const registry = createPromptRegistry({ identity: 'You are the watch harness.' })
    registry.variable('w0', () => 'zero')
    registry.variable('w1', () => 'one')
    registry.variable('w2', () => 'two')
    registry.section({ name: 'w', order: 10, text: () => state.text })
    const check = (assembly: PromptAssembly) =>
      expect(summary(compile(assembly, { tokenizer: words }))).toEqual(reference(assembly, words))
    check(await registry.assemble())
    check(await registry.assemble())
    state.text = 'Now {{w1}}.'
    check(await registry.assemble())
    const changed = await registry.assemble()
    changed.variables.w1 = 'changed in place'
    check(changed)
    // Present but undefined: the one value a comparison past a shorter snapshot could mistake.
    state.text = 'Then {{#if w2}}w2 set{{/if}}.'
    check(await registry.assemble())
    const unset = await registry.assemble()
    unset.variables.w2 = undefined
    unset.stability.w2 = undefined as never
    check(unset)
    const stable = await registry.assemble()
    stable.stability.w2 = 'turn'
    expect(compile(stable, { tokenizer: words }).sections.find((s) => s.name === 'w')?.stability).toBe('turn')
    check(await registry.assemble())
  })

  it('a section referencing more keys than are watched is still checked key by key', async () => {
    // Past the bound on watched keys a memo is never marked valid for an epoch: its keys are read.
    const count = 1100
    const registry = createPromptRegistry({ identity: 'You are the many-keys harness.' })
    const values = new Map<string, string | undefined>()
    for (let i = 0; i < count; i++) {
      values.set(`many${i}`, undefined)
      registry.variable(`many${i}`, () => values.get(`many${i}`))
    }
    let text = ''
    for (let i = 0; i < count; i++) text += `{{#if many${i}}}${i} {{/if}}`
    registry.section({ name: 'many', order: 10, text: `Keys: ${text}` })
    const check = (assembly: PromptAssembly) =>
      expect(summary(compile(assembly, { tokenizer: words }))).toEqual(reference(assembly, words))
    check(await registry.assemble())
    for (const i of [count - 1, 0, 700]) {
      const assembly = await registry.assemble()
      assembly.variables[`many${i}`] = 'set'
      check(assembly)
      check(await registry.assemble())
    }
  })

  it('property: any sequence of changes compiles as a compile from scratch would', async () => {
    const fragment = fc.constantFrom(
      'plain words',
      '{{v0}}',
      '{{v1}}',
      '{{#if v2}}when v2{{/if}}',
      '{{#if v3}}x{{else}}unless v3{{/if}}',
      '\r\n',
      '\n\n',
      '  ',
      'ünï 🤖',
    )
    const text = fc.array(fragment, { maxLength: 5 }).map((parts) => parts.join(' '))
    const value = fc.option(fc.constantFrom('', 'x', 'y y', '\n'), { nil: undefined })
    const step = fc.oneof(
      fc.record({ kind: fc.constant('text' as const), index: fc.nat(3), text }),
      fc.record({ kind: fc.constant('value' as const), index: fc.nat(3), value }),
      fc.record({ kind: fc.constant('schema' as const), index: fc.nat(2), text: fc.constantFrom('a', 'b') }),
      fc.record({ kind: fc.constant('options' as const), tokenizer: fc.boolean(), hash: fc.boolean() }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 4, maxLength: 4 }),
        fc.array(step, { maxLength: 12 }),
        async (texts, steps) => {
          const state = {
            texts,
            values: ['a', 'b', undefined, 'd'] as (string | undefined)[],
            tools: [tool('t0', 'a'), tool('t1', 'a'), tool('t2', 'a')],
          }
          const registry = harness(state)
          let tokenizer = words
          let hash = nodeSha
          for (const s of [{ kind: 'none' as const }, ...steps]) {
            if (s.kind === 'text') state.texts[s.index] = s.text
            // Strict mustache refuses an insertion with no value: only v2 and v3 (conditions) go undefined.
            if (s.kind === 'value') state.values[s.index] = s.index < 2 ? (s.value ?? '') : s.value
            if (s.kind === 'schema') state.tools[s.index]!.description = s.text
            if (s.kind === 'options') {
              tokenizer = s.tokenizer ? words : chars
              hash = s.hash ? nodeSha : otherSha
            }
            const assembly = await registry.assemble()
            expect(summary(compile(assembly, { tokenizer, hash }))).toEqual(reference(assembly, tokenizer))
          }
        },
      ),
      { numRuns: 60 },
    )
  })
})
