import { describe, expect, it } from 'vitest'
import { filler, promptOf } from './fixtures.test-helper.js'
import { planCache } from './plan-cache.js'
import { toAnthropic } from './provider-shapes.js'
import type { CompiledPrompt } from './types.js'

// A compiled prompt a harness built or edited by hand may hold text and
// stable prefixes but no section spans. The cache plan and the Anthropic
// shape still describe its text: one block, the prefix unnamed.

const spanless = (): CompiledPrompt => ({ ...promptOf([{ name: 'a', text: filler(1500) }]), sections: [] })

describe('a compiled prompt without section spans', () => {
  it('is sent to Anthropic as one block, which a breakpoint at its end marks', () => {
    const compiled = spanless()
    expect(toAnthropic(compiled, { breakpoints: [] }).system).toEqual([{ type: 'text', text: compiled.text }])
    expect(toAnthropic(compiled, { breakpoints: [compiled.text.length] }).system).toEqual([
      { type: 'text', text: compiled.text, cache_control: { type: 'ephemeral' } },
    ])
  })

  it('is planned by its stable prefix, whose warning names no section', () => {
    const compiled = spanless()
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(plan.breakpoints).toEqual([compiled.text.length])
    expect(plan.marks).toEqual([])
    expect(plan.warnings).toEqual([expect.objectContaining({ code: 'below-cache-minimum', section: '' })])
    expect(plan.warnings[0]!.message).toMatch(/^the static prefix, through section "", is 1 500 tokens/)
  })
})
