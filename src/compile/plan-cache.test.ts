import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Stability } from '../registry/types.js'
import { CACHE_MINIMUMS, cacheMinimum } from './cache-minimums.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import { planCache } from './plan-cache.js'

const codes = (plan: { warnings: { code: string }[] }) => plan.warnings.map((w) => w.code)

describe('planCache breakpoints', () => {
  it('puts breakpoints at the end of the static prefix, then of the session prefix', () => {
    const compiled = promptOf([
      { name: 'identity', text: filler(800) },
      { name: 'tools', text: filler(400) },
      { name: 'project', text: filler(300), stability: 'session' },
      { name: 'clock', text: 'now', stability: 'turn' },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4-5' })
    expect(plan.breakpoints).toEqual([compiled.sections[1]!.end, compiled.sections[2]!.end])
    expect(plan.breakpoints).toEqual([compiled.stablePrefix.static.end, compiled.stablePrefix.session.end])
    expect(plan.cacheableTokens).toBe(compiled.stablePrefix.session.tokens)
    expect(plan.cacheableTokens).toBe(800 + 1 + 400 + 1 + 300)
    expect(plan.warnings).toEqual([])
  })

  it('places one breakpoint at the end of an all-static prompt', () => {
    const compiled = promptOf([
      { name: 'a', text: filler(700) },
      { name: 'b', text: filler(700) },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4' })
    expect(plan.breakpoints).toEqual([compiled.text.length])
    expect(plan.cacheableTokens).toBe(1401)
  })

  it('places only the session breakpoint when the prompt opens with a session section', () => {
    const compiled = promptOf([
      { name: 'a', text: filler(1100), stability: 'session' },
      { name: 'b', text: 'x', stability: 'turn' },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4' })
    expect(plan.breakpoints).toEqual([compiled.sections[0]!.end])
  })

  it('places none and warns when the first section changes every turn', () => {
    const compiled = promptOf([
      { name: 'clock', text: 'now', stability: 'turn' },
      { name: 'a', text: filler(2000) },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4' })
    expect(plan.breakpoints).toEqual([])
    expect(plan.cacheableTokens).toBe(0)
    expect(plan.warnings).toContainEqual(
      expect.objectContaining({ code: 'below-cache-minimum', section: 'clock' }),
    )
  })

  it('plans nothing and warns nothing for an empty prompt', () => {
    const plan = planCache(promptOf([]), { provider: 'anthropic', model: 'claude-sonnet-4' })
    expect(plan).toEqual({ breakpoints: [], marks: [], cacheableTokens: 0, minTokens: 1024, warnings: [] })
  })

  it('keeps breakpoints ascending section ends, at most 4, for any stabilities', () => {
    const stability = fc.constantFrom<Stability>('static', 'session', 'turn')
    fc.assert(
      fc.property(
        fc.array(stability, { maxLength: 8 }),
        fc.constantFrom('anthropic', 'openai', 'gemini'),
        (list, p) => {
          const compiled = promptOf(
            list.map((s, i) => ({ name: `s${i}`, text: filler(i + 1), stability: s })),
          )
          const plan = planCache(compiled, { provider: p as 'anthropic' })
          expect(plan.breakpoints.length).toBeLessThanOrEqual(4)
          const ends = new Set(compiled.sections.map((s) => s.end))
          for (const b of plan.breakpoints) expect(ends.has(b)).toBe(true)
          expect([...plan.breakpoints].sort((x, y) => x - y)).toEqual(plan.breakpoints)
          expect(new Set(plan.breakpoints).size).toBe(plan.breakpoints.length)
        },
      ),
    )
  })
})

describe('planCache warnings', () => {
  it('warns below-cache-minimum for a static prefix too short on its own, naming its last section', () => {
    const compiled = promptOf([
      { name: 'identity', text: filler(500) },
      { name: 'project', text: filler(1000), stability: 'session' },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4-6' })
    expect(plan.warnings).toHaveLength(1)
    expect(plan.warnings[0]).toMatchObject({ code: 'below-cache-minimum', section: 'identity' })
    expect(plan.warnings[0]!.message).toContain('500 tokens')
    expect(plan.warnings[0]!.message).toContain('1 024-token minimum')
    expect(plan.cacheableTokens).toBe(1501)
  })

  it('warns for each prefix and caches nothing when the whole stable prefix is short', () => {
    const compiled = promptOf([
      { name: 'identity', text: filler(500) },
      { name: 'project', text: filler(1000), stability: 'session' },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(plan.minTokens).toBe(4096)
    expect(plan.warnings.map((w) => w.section)).toEqual(['identity', 'project'])
    expect(plan.cacheableTokens).toBe(0)
    expect(plan.breakpoints).toHaveLength(2)
  })

  it('warns unknown-model and assumes the largest minimum', () => {
    const compiled = promptOf([{ name: 'a', text: filler(2000) }])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-next-1' })
    expect(plan.minTokens).toBe(4096)
    expect(codes(plan)).toEqual(['unknown-model', 'below-cache-minimum'])
    expect(plan.warnings[0]!.message).toContain('claude-next-1')
  })

  it('does not warn unknown-model without a model, or with minTokens or a matching override', () => {
    const compiled = promptOf([{ name: 'a', text: filler(5000) }])
    expect(codes(planCache(compiled, { provider: 'anthropic' }))).toEqual([])
    expect(codes(planCache(compiled, { provider: 'anthropic', model: 'x', minTokens: 10 }))).toEqual([])
    expect(codes(planCache(compiled, { provider: 'gemini', model: 'g', minimums: { g: 10 } }))).toEqual([])
  })

  it('honours minTokens and minimums over the table', () => {
    const compiled = promptOf([{ name: 'a', text: filler(900) }])
    expect(
      planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4', minTokens: 512 }),
    ).toMatchObject({
      cacheableTokens: 900,
      warnings: [],
    })
    const overridden = planCache(compiled, {
      provider: 'anthropic',
      model: 'claude-sonnet-4',
      minimums: { 'claude-sonnet-4': 2048 },
    })
    expect(overridden.minTokens).toBe(2048)
    expect(codes(overridden)).toEqual(['below-cache-minimum'])
  })

  it('warns session-before-static on the session section, naming the static ones it shuts out', () => {
    const compiled = promptOf([
      { name: 'identity', text: filler(1100) },
      { name: 'cwd', text: 'in /repo', stability: 'session' },
      { name: 'guidance', text: 'use tools' },
      { name: 'safety', text: 'be safe' },
    ])
    const plan = planCache(compiled, { provider: 'openai' })
    const warning = plan.warnings.find((w) => w.code === 'session-before-static')
    expect(warning?.section).toBe('cwd')
    expect(warning?.message).toContain('"guidance", "safety"')
    expect(codes(plan)).toEqual(['session-before-static'])
  })

  it('does not warn session-before-static when static sections come first', () => {
    const compiled = promptOf([
      { name: 'a', text: filler(1100) },
      { name: 'b', text: 'b', stability: 'session' },
      { name: 'c', text: 'c', stability: 'turn' },
    ])
    expect(codes(planCache(compiled, { provider: 'openai' }))).toEqual([])
  })
})

describe('planCache cacheable tokens by provider', () => {
  const sized = (tokens: number) => promptOf([{ name: 'a', text: filler(tokens) }])

  it.each([
    [1023, 0],
    [1024, 1024],
    [1151, 1024],
    [1152, 1152],
    [1300, 1280],
    [5000, 4992],
  ])('OpenAI rounds %i tokens down to %i (128-token steps, 0 below 1024)', (tokens, cacheable) => {
    expect(planCache(sized(tokens), { provider: 'openai', model: 'gpt-5' }).cacheableTokens).toBe(cacheable)
  })

  it('warns below-cache-minimum under 1024 for OpenAI', () => {
    expect(codes(planCache(sized(1023), { provider: 'openai' }))).toEqual(['below-cache-minimum'])
  })

  it('uses the Gemini minimum by model without rounding', () => {
    expect(planCache(sized(2100), { provider: 'gemini', model: 'gemini-2.5-flash' }).cacheableTokens).toBe(
      2100,
    )
    const three = planCache(sized(2100), { provider: 'gemini', model: 'gemini-3-pro-preview' })
    expect(three.cacheableTokens).toBe(0)
    expect(codes(three)).toEqual(['below-cache-minimum'])
  })

  it('counts the longest prefix that reaches the minimum for Anthropic', () => {
    const compiled = promptOf([
      { name: 'a', text: filler(1100) },
      { name: 'b', text: filler(30), stability: 'session' },
    ])
    expect(planCache(compiled, { provider: 'anthropic', model: 'claude-opus-4-1' }).cacheableTokens).toBe(
      1131,
    )
  })
})

describe('cacheVerdict and the harness share', () => {
  it('counts baseTokens towards the minimum, and warns about the minimum only when asked to', async () => {
    const { cacheVerdict } = await import('./plan-cache.js')
    expect(cacheVerdict(300, { provider: 'openai', model: 'gpt-5' })).toEqual({
      cacheable: false,
      tokens: 300,
      minTokens: 1024,
      source: 'table',
    })
    expect(cacheVerdict(300, { provider: 'openai', baseTokens: 800 }).cacheable).toBe(true)
    const compiled = promptOf([{ name: 'a', text: 'Short.', order: 0 }])
    expect(planCache(compiled, { provider: 'anthropic', minimumWarnings: false }).warnings).toEqual([])
    expect(planCache(compiled, { provider: 'anthropic' }).warnings.map((w) => w.code)).toEqual([
      'below-cache-minimum',
    ])
    const based = planCache(compiled, { provider: 'openai', baseTokens: 5000 })
    expect(based.marks).toEqual(based.breakpoints)
    expect(based.warnings).toEqual([])
  })
})

describe('planCache at each provider minimum', () => {
  // One below, exactly at and one above every row of the table: a prefix of
  // exactly the minimum is cached (the providers' documentation says "at
  // least"), one token less is not.
  const rows = CACHE_MINIMUMS.map((row) => ({ ...row, id: row.model.replaceAll('*', '5') }))
  const sized = (tokens: number) => promptOf([{ name: 'a', text: filler(tokens) }])

  it.each(rows)('$provider $model ($minTokens tokens)', ({ provider, id, minTokens }) => {
    expect(cacheMinimum(provider, id)).toEqual(expect.objectContaining({ minTokens, source: 'table' }))
    for (const tokens of [minTokens - 1, minTokens, minTokens + 1]) {
      const compiled = sized(tokens)
      expect(compiled.stablePrefix.static.tokens).toBe(tokens)
      const plan = planCache(compiled, { provider, model: id })
      const cached = tokens >= minTokens
      expect(plan.minTokens).toBe(minTokens)
      expect(plan.marks).toEqual(cached ? plan.breakpoints : [])
      expect(plan.cacheableTokens).toBe(cached ? (provider === 'openai' ? minTokens : tokens) : 0)
      expect(codes(plan)).toEqual(cached ? [] : ['below-cache-minimum'])
    }
  })

  it.each(['anthropic', 'openai', 'gemini'] as const)(
    '%s: the harness share and a forced minimum count up to the boundary too',
    (provider) => {
      const compiled = sized(1000)
      for (const [baseTokens, cached] of [
        [23, false],
        [24, true],
        [25, true],
      ] as const) {
        const plan = planCache(compiled, { provider, minTokens: 1024, baseTokens })
        expect(plan.marks.length).toBe(cached ? 1 : 0)
        expect(codes(plan)).toEqual(cached ? [] : ['below-cache-minimum'])
      }
      for (const [minTokens, cached] of [
        [999, true],
        [1000, true],
        [1001, false],
      ] as const) {
        expect(planCache(compiled, { provider, minTokens }).marks.length).toBe(cached ? 1 : 0)
      }
    },
  )
})
