import { describe, expect, it } from 'vitest'
import { CACHE_MINIMUMS, cacheMinimum, normalizeModel } from './cache-minimums.js'

describe('cacheMinimum', () => {
  it.each([
    ['claude-3-7-sonnet-20250219', 1024],
    ['claude-sonnet-4-20250514', 1024],
    ['claude-sonnet-4-5', 1024],
    ['claude-sonnet-4-6', 1024],
    ['claude-opus-4-20250514', 1024],
    ['claude-opus-4-1-20250805', 1024],
    ['claude-3-haiku-20240307', 2048],
    ['claude-3-5-haiku-latest', 2048],
    ['claude-opus-4-5-20251101', 4096],
    ['claude-opus-4-6', 4096],
    ['claude-haiku-4-5-20251001', 4096],
  ])('anthropic %s → %i', (model, minTokens) => {
    expect(cacheMinimum('anthropic', model)).toMatchObject({ minTokens, source: 'table' })
  })

  it.each([
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 1024],
    ['claude-opus-4-5@20251101', 4096],
    ['anthropic/claude-sonnet-4.5', 1024],
    ['Claude-Haiku-4-5', 4096],
  ])('anthropic gateway spelling %s → %i', (model, minTokens) => {
    expect(cacheMinimum('anthropic', model).minTokens).toBe(minTokens)
  })

  it('does not let an older family swallow a newer version (opus 4 vs 4.5)', () => {
    expect(cacheMinimum('anthropic', 'claude-opus-4').minTokens).toBe(1024)
    expect(cacheMinimum('anthropic', 'claude-opus-4-5').minTokens).toBe(4096)
    expect(cacheMinimum('anthropic', 'claude-opus-4-7').source).toBe('largest')
  })

  it('gives every OpenAI model 1024', () => {
    expect(cacheMinimum('openai', 'gpt-5.1')).toMatchObject({ minTokens: 1024, source: 'table' })
    expect(cacheMinimum('openai', 'o4-mini').minTokens).toBe(1024)
  })

  it.each([
    ['gemini-2.5-pro', 2048],
    ['models/gemini-2.5-flash', 2048],
    ['gemini-3-pro-preview', 4096],
    ['gemini-3.1-flash', 4096],
  ])('gemini %s → %i', (model, minTokens) => {
    expect(cacheMinimum('gemini', model)).toMatchObject({ minTokens, source: 'table' })
  })

  it("takes the provider's largest minimum for an unknown or unnamed model", () => {
    expect(cacheMinimum('anthropic', 'claude-next')).toEqual({ minTokens: 4096, source: 'largest' })
    expect(cacheMinimum('anthropic')).toEqual({ minTokens: 4096, source: 'largest' })
    expect(cacheMinimum('gemini', 'gemini-2.0-flash')).toEqual({ minTokens: 4096, source: 'largest' })
    expect(cacheMinimum('openai').minTokens).toBe(1024)
  })

  it('lets minTokens force one value', () => {
    expect(cacheMinimum('anthropic', 'claude-next', { minTokens: 300 })).toEqual({
      minTokens: 300,
      source: 'forced',
    })
  })

  it('merges caller rows over the table: a same-named row replaces it, a new row adds a model', () => {
    const minimums = { 'claude-sonnet-4-5-20250929': 2000, 'claude-next-*': 1500 }
    expect(cacheMinimum('anthropic', 'claude-sonnet-4-5', { minimums }).minTokens).toBe(2000)
    expect(cacheMinimum('anthropic', 'claude-next-1', { minimums }).minTokens).toBe(1500)
    expect(cacheMinimum('anthropic', 'claude-sonnet-4-6', { minimums }).minTokens).toBe(1024)
  })

  it('prefers an exact row to a glob, and the longer glob to the shorter', () => {
    const minimums = { 'claude-*': 500, 'claude-x-*': 700 }
    expect(cacheMinimum('anthropic', 'claude-opus-4-6', { minimums }).minTokens).toBe(4096)
    expect(cacheMinimum('anthropic', 'claude-x-1', { minimums }).minTokens).toBe(700)
    expect(cacheMinimum('anthropic', 'claude-y', { minimums }).minTokens).toBe(500)
  })

  it('keeps the numbers in one table covering all three providers', () => {
    expect(new Set(CACHE_MINIMUMS.map((row) => row.provider))).toEqual(
      new Set(['anthropic', 'openai', 'gemini']),
    )
  })
})

describe('normalizeModel', () => {
  it('strips vendor paths, Bedrock and Vertex decorations, dates and -latest', () => {
    expect(normalizeModel('eu.anthropic.claude-3-haiku-20240307-v1:0')).toBe('claude-3-haiku')
    expect(normalizeModel('models/gemini-2.5-pro')).toBe('gemini-2.5-pro')
    expect(normalizeModel('claude-3-5-haiku-latest')).toBe('claude-3-5-haiku')
    expect(normalizeModel('claude-sonnet-4.5', 'anthropic')).toBe('claude-sonnet-4-5')
    expect(normalizeModel('gemini-2.5-pro', 'gemini')).toBe('gemini-2.5-pro')
  })
})
