import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileTemplate } from '../../../src/template/index.js'
import { TagKind } from '../../../src/template/tokens.js'
import type { Dialect, Variable } from '../api-types.js'
import { insertionFor } from './insertion.js'
import { tokenize } from './tags.js'

const variable = (key: string, extra: Partial<Variable> = {}): Variable => ({
  key,
  description: '',
  stability: 'session',
  ...extra,
})

const namespaced = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9_-]{0,6}$/), fc.stringMatching(/^[A-Za-z0-9._/:-]{1,12}$/))
  .map(([ns, name]) => `${ns}:${name}`)

describe('insertionFor', () => {
  it('inserts a key as one tag of the dialect that the template language reads back as that key', () => {
    fc.assert(
      fc.property(namespaced, fc.constantFrom<Dialect>('bracket', 'mustache'), (key, dialect) => {
        const { insert, select } = insertionFor(variable(key), dialect)
        expect(select).toBeUndefined()
        const { tags, malformed } = tokenize(insert, dialect)
        expect(malformed).toEqual([])
        expect(tags).toEqual([{ kind: TagKind.Insert, start: 0, end: insert.length, key, negated: false }])
        expect(compileTemplate(insert, { dialect }).variables).toEqual([key])
      }),
    )
  })

  it('fills a pattern key from its example and selects the part to edit', () => {
    const v = variable('file:<path>', { pattern: true, example: 'file:AGENTS.md' })
    const bracket = insertionFor(v, 'bracket')
    expect(bracket.insert).toBe('[file:AGENTS.md]')
    expect(bracket.insert.slice(bracket.select!.from, bracket.select!.to)).toBe('AGENTS.md')
    const mustache = insertionFor(variable('env:<NAME>', { pattern: true, example: 'env:CI' }), 'mustache')
    expect(mustache.insert).toBe('{{env:CI}}')
    expect(mustache.insert.slice(mustache.select!.from, mustache.select!.to)).toBe('CI')
  })

  it('uses a placeholder when a pattern key has no usable example', () => {
    const { insert, select } = insertionFor(variable('file:<path>', { pattern: true }), 'bracket')
    expect(insert).toBe('[file:path]')
    expect(insert.slice(select!.from, select!.to)).toBe('path')
    expect(compileTemplate(insert, { dialect: 'bracket' }).variables).toEqual(['file:path'])
  })
})
