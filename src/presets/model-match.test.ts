import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fragmentApplies, modelMatches } from './model-match.js'

describe('modelMatches', () => {
  it('matches globs case-blind, against the whole id or its last path part', () => {
    expect(modelMatches(['gpt-5*'], 'gpt-5.1-codex')).toBe(true)
    expect(modelMatches(['claude-*'], 'anthropic/Claude-Sonnet-4-5')).toBe(true)
    expect(modelMatches(['claude-*'], 'gemini-2.5-pro')).toBe(false)
    expect(modelMatches(['*'], '  ')).toBe(false)
  })
})

describe('fragmentApplies', () => {
  it('uses a fragment without models: for every model and for none', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), (model) => {
        expect(fragmentApplies({}, model)).toBe(true)
      }),
    )
  })

  it('never uses a fragment with models: when no model is given', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 4 }), (models) => {
        expect(fragmentApplies({ models }, undefined)).toBe(false)
      }),
    )
  })

  it('uses a fragment with models: exactly when one of its globs matches the model', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('gpt-5*', 'claude-*', 'qwen3-?oder', '*'), { maxLength: 3 }),
        fc.constantFrom('gpt-5.1', 'claude-opus-4-6', 'qwen3-coder', 'openai/gpt-5', 'gemini-2.5-pro'),
        (models, model) => {
          expect(fragmentApplies({ models }, model)).toBe(modelMatches(models, model))
        },
      ),
    )
    expect(fragmentApplies({ models: [] }, 'gpt-5')).toBe(false)
  })
})
