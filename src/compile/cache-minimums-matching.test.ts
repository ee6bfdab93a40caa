import { describe, expect, it } from 'vitest'
import { cacheMinimum, normalizeModel } from './cache-minimums.js'

// Which row of the minimum table (and of a caller's `minimums`) a model id
// selects: ids as gateways and clouds spell them, exact rows over globs,
// longer globs over shorter, caller rows first on a tie and in place of the
// table's row of the same pattern.

describe('normalizeModel: only the decorations at either end', () => {
  it.each([
    [' Claude-Sonnet-4-5 ', 'claude-sonnet-4-5'],
    ['gateway/anthropic/claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['anthropic.claude-3-haiku-20240307-v1:0', 'claude-3-haiku'],
    ['apac.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4'],
    ['global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['us-gov.anthropic.claude-3-haiku-20240307-v1:0', 'claude-3-haiku'],
    ['claude-3-haiku-v1', 'claude-3-haiku'],
    ['claude-3-haiku-v10:0', 'claude-3-haiku'],
    ['claude-3-haiku-v1:10', 'claude-3-haiku'],
    ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
  ])('%j → %j', (model, id) => {
    expect(normalizeModel(model)).toBe(id)
  })

  it.each([
    ['proxy-anthropic.claude-3-haiku', 'proxy-anthropic.claude-3-haiku'],
    ['claude-v2-preview', 'claude-v2-preview'],
    ['claude-x-20250514-preview', 'claude-x-20250514-preview'],
    ['claude-latest-preview', 'claude-latest-preview'],
  ])('%j stays %j: the same words inside an id are part of its name', (model, id) => {
    expect(normalizeModel(model)).toBe(id)
  })

  it("reads Bedrock's global inference profile as the model it serves", () => {
    expect(cacheMinimum('anthropic', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual({
      minTokens: 1024,
      source: 'table',
      pattern: 'claude-sonnet-4-5',
    })
  })

  it('gives the Vertex spelling of a 1024-token model its own minimum', () => {
    expect(cacheMinimum('anthropic', 'claude-sonnet-4-5@20250929')).toEqual({
      minTokens: 1024,
      source: 'table',
      pattern: 'claude-sonnet-4-5',
    })
  })
})

describe('cacheMinimum: which row wins', () => {
  it("prefers the table's exact row to a caller's glob of the same literal length", () => {
    const minimums = { 'claude-opus-4-6*': 500 }
    expect(cacheMinimum('anthropic', 'claude-opus-4-6', { minimums })).toEqual({
      minTokens: 4096,
      source: 'table',
      pattern: 'claude-opus-4-6',
    })
    expect(cacheMinimum('anthropic', 'claude-opus-4-6-fast', { minimums }).minTokens).toBe(500)
  })

  it('prefers an exact caller row to a table glob that comes later', () => {
    expect(cacheMinimum('gemini', 'gemini-2.5-pro', { minimums: { 'gemini-2.5-pro': 1000 } })).toEqual({
      minTokens: 1000,
      source: 'table',
      pattern: 'gemini-2.5-pro',
    })
  })

  it('ranks globs by their literal text, not by how many stars they hold', () => {
    const minimums = { 'claude-*-*-*': 300, 'claude-opu*': 600 }
    expect(cacheMinimum('anthropic', 'claude-opus-9-1', { minimums })).toEqual({
      minTokens: 600,
      source: 'table',
      pattern: 'claude-opu*',
    })
  })

  it("gives a caller's glob the win over a table glob of the same literal length", () => {
    expect(cacheMinimum('gemini', 'gemini-2.5-pro', { minimums: { 'gemini-*-pro': 1500 } })).toEqual({
      minTokens: 1500,
      source: 'table',
      pattern: 'gemini-*-pro',
    })
  })

  it('reads a caller glob as written, without the spaces around it and in any case', () => {
    expect(cacheMinimum('anthropic', 'claude-next-1', { minimums: { ' Claude-Next-* ': 1500 } })).toEqual({
      minTokens: 1500,
      source: 'table',
      pattern: 'claude-next-*',
    })
  })

  it("takes the largest of the rows after a caller's rows replaced the table's", () => {
    const minimums = { 'claude-opus-4-5': 1024, 'claude-opus-4-6': 1024, 'claude-haiku-4-5': 1024 }
    expect(cacheMinimum('anthropic', 'claude-next', { minimums })).toEqual({
      minTokens: 2048,
      source: 'largest',
    })
    expect(cacheMinimum('anthropic', 'claude-next')).toEqual({ minTokens: 4096, source: 'largest' })
  })
})
