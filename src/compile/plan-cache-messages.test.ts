import { describe, expect, it } from 'vitest'
import { filler, promptOf } from './fixtures.test-helper.js'
import { cacheVerdict, planCache } from './plan-cache.js'

// The warnings of a cache plan are what `sysprompt inspect` and `compile`
// print: each says which prefix, how long, against which minimum and what
// to do. Pinned whole here.

describe('planCache: warning messages', () => {
  it('a static prefix too short on its own, and a whole stable prefix too short, with the harness share', () => {
    const compiled = promptOf([
      { name: 'identity', text: filler(500) },
      { name: 'project', text: filler(300), stability: 'session' },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4-6', baseTokens: 1200 })
    expect(plan.warnings).toEqual([])
    const short = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4-6', baseTokens: 100 })
    expect(short.warnings).toEqual([
      {
        code: 'below-cache-minimum',
        section: 'identity',
        message:
          'the static prefix, through section "identity", is 500 tokens (with 100 tokens of the harness\'s own before it), below the 1 024-token minimum of anthropic (claude-sonnet-4-6): it is not cached on its own. Move more stable text before it, or accept the miss.',
      },
      {
        code: 'below-cache-minimum',
        section: 'project',
        message:
          'the static + session prefix, through section "project", is 801 tokens (with 100 tokens of the harness\'s own before it), below the 1 024-token minimum of anthropic (claude-sonnet-4-6): it is not cached. Move more stable text before it, or accept the miss.',
      },
    ])
    expect(short.marks).toEqual([])
    expect(short.cacheableTokens).toBe(0)
  })

  it('names the provider alone when no model was named, and says nothing of a harness share of 0', () => {
    const compiled = promptOf([{ name: 'a', text: filler(100) }])
    expect(planCache(compiled, { provider: 'gemini', baseTokens: -5 }).warnings).toEqual([
      {
        code: 'below-cache-minimum',
        section: 'a',
        message:
          'the static prefix, through section "a", is 100 tokens, below the 4 096-token minimum of gemini: it is not cached. Move more stable text before it, or accept the miss.',
      },
    ])
    expect(planCache(compiled, { provider: 'gemini', minimumWarnings: false }).warnings).toEqual([])
  })

  it('an unknown model', () => {
    const compiled = promptOf([{ name: 'a', text: filler(5000) }])
    expect(planCache(compiled, { provider: 'anthropic', model: 'claude-next-1' }).warnings).toEqual([
      {
        code: 'unknown-model',
        message:
          'model "claude-next-1" is not in the anthropic cache-minimum table; assuming anthropic\'s largest minimum of 4 096 tokens. Pass minTokens or minimums to planCache if it caches shorter prefixes.',
      },
    ])
  })

  it('a first section that changes between turns', () => {
    const compiled = promptOf([
      { name: 'clock', text: 'now', stability: 'turn' },
      { name: 'b', text: filler(2000) },
    ])
    const plan = planCache(compiled, { provider: 'openai' })
    expect(plan.breakpoints).toEqual([])
    expect(plan.warnings).toEqual([
      {
        code: 'below-cache-minimum',
        section: 'clock',
        message:
          'the first section, "clock", changes between turns, so no part of the system prompt is cached across sessions. Give it a later order or move its values to the environment message.',
      },
    ])
  })

  it('a session section before one static section, and before two', () => {
    const one = promptOf([
      { name: 'identity', text: filler(1100) },
      { name: 'cwd', text: 'in /repo', stability: 'session', order: 15 },
      { name: 'guidance', text: 'use tools', order: 30 },
    ])
    expect(planCache(one, { provider: 'openai' }).warnings).toEqual([
      {
        code: 'session-before-static',
        section: 'cwd',
        message:
          'session section "cwd" (order 15) comes before static section "guidance", which therefore miss the prefix shared across sessions. Give "cwd" a higher order than them, or them a lower one.',
      },
    ])
    const two = promptOf([
      { name: 'identity', text: filler(1100) },
      { name: 'cwd', text: 'in /repo', stability: 'session' },
      { name: 'turn', text: 'now', stability: 'turn' },
      { name: 'guidance', text: 'use tools' },
      { name: 'safety', text: 'be safe' },
    ])
    expect(planCache(two, { provider: 'openai' }).warnings.map((w) => w.message)).toEqual([
      'session section "cwd" (order 20) comes before static sections "guidance", "safety", which therefore miss the prefix shared across sessions. Give "cwd" a higher order than them, or them a lower one.',
    ])
  })
})

describe('planCache: cacheable tokens', () => {
  it('rounds down to a 128-token step for OpenAI only', () => {
    const compiled = promptOf([{ name: 'a', text: filler(1300) }])
    expect(planCache(compiled, { provider: 'openai' }).cacheableTokens).toBe(1280)
    expect(planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4' }).cacheableTokens).toBe(
      1300,
    )
    expect(planCache(compiled, { provider: 'openai', minTokens: 1301 }).cacheableTokens).toBe(0)
  })

  it('marks only the prefixes that reach the minimum, and caches the longest of them', () => {
    const compiled = promptOf([
      { name: 'a', text: filler(1100) },
      { name: 'b', text: filler(100), stability: 'session' },
    ])
    const plan = planCache(compiled, { provider: 'anthropic', model: 'claude-sonnet-4', minTokens: 1150 })
    expect(plan.breakpoints).toHaveLength(2)
    expect(plan.marks).toEqual([plan.breakpoints[1]])
    expect(plan.cacheableTokens).toBe(1201)
  })
})

describe('cacheVerdict', () => {
  it('adds the harness share, never a negative one, and says where the minimum came from', () => {
    expect(cacheVerdict(1000, { provider: 'openai', model: 'gpt-4.1', baseTokens: 24 })).toEqual({
      cacheable: true,
      tokens: 1024,
      minTokens: 1024,
      source: 'table',
    })
    expect(cacheVerdict(1023, { provider: 'openai', model: 'gpt-4.1', baseTokens: -50 })).toEqual({
      cacheable: false,
      tokens: 1023,
      minTokens: 1024,
      source: 'table',
    })
    expect(cacheVerdict(10, { provider: 'anthropic', minTokens: 10 })).toEqual({
      cacheable: true,
      tokens: 10,
      minTokens: 10,
      source: 'forced',
    })
    expect(cacheVerdict(10, { provider: 'anthropic' }).source).toBe('largest')
  })
})
