import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffCompiled } from './diff.js'
import { filler, promptOf } from './fixtures.test-helper.js'
import { countTokens, o200k } from './tokenizers.js'

describe('diffCompiled', () => {
  it('reports identical prompts with every token reusable', () => {
    const sections = [
      { name: 'a', text: 'alpha' },
      { name: 'b', text: 'beta' },
    ]
    const diff = diffCompiled(promptOf(sections), promptOf(sections))
    const b = promptOf(sections)
    expect(diff).toEqual({
      identical: true,
      firstDifference: null,
      section: null,
      commonPrefixTokens: b.tokens,
      added: [],
      removed: [],
      changed: [],
    })
  })

  it('gives the string index of the first difference and the section of b holding it', () => {
    const a = promptOf([
      { name: 'a', text: 'alpha' },
      { name: 'b', text: 'beta' },
      { name: 'c', text: 'gamma' },
    ])
    const b = promptOf([
      { name: 'a', text: 'alpha' },
      { name: 'b', text: 'betX' },
      { name: 'c', text: 'gamma' },
    ])
    const diff = diffCompiled(a, b)
    expect(diff.identical).toBe(false)
    expect(diff.firstDifference).toBe(b.sections[1]!.start + 3)
    expect(diff.section).toBe('b')
    expect(diff.commonPrefixTokens).toBe(b.sections[0]!.tokens)
    expect(diff.changed).toEqual(['b'])
    expect(diff.added).toEqual([])
    expect(diff.removed).toEqual([])
  })

  it('uses string indices, so text.slice agrees on both sides around a surrogate pair', () => {
    const a = promptOf([{ name: 'a', text: '😀 rocket 🚀 one' }])
    const b = promptOf([{ name: 'a', text: '😀 rocket 🚀 two' }])
    const at = diffCompiled(a, b).firstDifference!
    expect(a.text.slice(0, at)).toBe(b.text.slice(0, at))
    expect(b.text.slice(at)).toBe('two')
  })

  it('attributes a difference inside a separator to the next section', () => {
    const a = promptOf([{ name: 'a', text: 'one' }])
    const b = promptOf([
      { name: 'a', text: 'one' },
      { name: 'b', text: 'two' },
    ])
    const diff = diffCompiled(a, b)
    expect(diff.firstDifference).toBe(3)
    expect(b.text.slice(3, 5)).toBe('\n\n')
    expect(diff.section).toBe('b')
    expect(diff.commonPrefixTokens).toBe(b.sections[0]!.tokens)
    expect(diff.added).toEqual(['b'])
  })

  it('does not count a section of b that a continues past the difference', () => {
    const a = promptOf([{ name: 'a', text: 'one more' }])
    const b = promptOf([
      { name: 'a', text: 'one' },
      { name: 'b', text: 'x' },
    ])
    const diff = diffCompiled(a, b)
    expect(diff.firstDifference).toBe(3)
    expect(diff.section).toBe('b')
    expect(diff.commonPrefixTokens).toBe(0)
    expect(diff.changed).toEqual(['a'])
    expect(diff.added).toEqual(['b'])
  })

  it('names no section when b is a prefix of a', () => {
    const a = promptOf([
      { name: 'a', text: 'one' },
      { name: 'b', text: 'two' },
    ])
    const b = promptOf([{ name: 'a', text: 'one' }])
    const diff = diffCompiled(a, b)
    expect(diff.firstDifference).toBe(b.text.length)
    expect(diff.section).toBeNull()
    expect(diff.commonPrefixTokens).toBe(b.tokens)
    expect(diff.removed).toEqual(['b'])
  })

  it('names no section and counts nothing when b ends inside a section of a', () => {
    const a = promptOf([{ name: 'a', text: 'abcdef' }])
    const b = promptOf([{ name: 'a', text: 'abc' }])
    const diff = diffCompiled(a, b)
    expect(diff.firstDifference).toBe(3)
    expect(diff.section).toBeNull()
    expect(diff.commonPrefixTokens).toBe(0)
  })

  it('counts the whole sections before the difference and the separators between them', () => {
    const sections = [
      { name: 'a', text: filler(10) },
      { name: 'b', text: filler(20) },
      { name: 'c', text: filler(30) },
    ]
    const a = promptOf(sections)
    const b = promptOf([...sections.slice(0, 2), { name: 'c', text: 'changed' }])
    // estimate: 10 + 1 (separator) + 20
    expect(diffCompiled(a, b).commonPrefixTokens).toBe(31)
  })

  it('counts separators with the prompt tokenizer (o200k)', () => {
    const texts = ['You are a careful assistant.', 'Use the tools listed below.', 'Today is Monday.']
    const sections = texts.map((text, i) => ({ name: `s${i}`, text }))
    const a = promptOf(sections, { tokenizer: 'o200k' })
    const b = promptOf([...sections.slice(0, 2), { name: 's2', text: 'Today is Tuesday.' }], {
      tokenizer: 'o200k',
    })
    const expected =
      countTokens(o200k, texts[0]!) + countTokens(o200k, '\n\n') + countTokens(o200k, texts[1]!)
    expect(diffCompiled(a, b).commonPrefixTokens).toBe(expected)
  })

  it('lists added and changed in b order, removed in a order', () => {
    const a = promptOf([
      { name: 'x', text: 'x' },
      { name: 'r1', text: 'r1' },
      { name: 'y', text: 'y' },
      { name: 'r2', text: 'r2' },
      { name: 'z', text: 'z' },
    ])
    const b = promptOf([
      { name: 'n1', text: 'n1' },
      { name: 'z', text: 'z2' },
      { name: 'y', text: 'y2' },
      { name: 'x', text: 'x' },
      { name: 'n2', text: 'n2' },
    ])
    const diff = diffCompiled(a, b)
    expect(diff.added).toEqual(['n1', 'n2'])
    expect(diff.changed).toEqual(['z', 'y'])
    expect(diff.removed).toEqual(['r1', 'r2'])
  })

  it('holds for random prompts: the texts agree before the index, and the named section spans it or follows it', () => {
    const text = fc.stringMatching(/^[a-c😀 \n]{1,12}$/u).map((s) => s.trim() || 'x')
    const sections = fc.array(text, { minLength: 1, maxLength: 5 })
    fc.assert(
      fc.property(sections, sections, (ta, tb) => {
        const a = promptOf(ta.map((t, i) => ({ name: `s${i}`, text: t })))
        const b = promptOf(tb.map((t, i) => ({ name: `s${i}`, text: t })))
        const diff = diffCompiled(a, b)
        expect(diff.identical).toBe(a.text === b.text)
        if (diff.firstDifference === null) return
        const at = diff.firstDifference
        expect(a.text.slice(0, at)).toBe(b.text.slice(0, at))
        expect(a.text[at] === b.text[at] && at < a.text.length).toBe(false)
        const index = b.sections.findIndex((s) => s.name === diff.section)
        if (diff.section === null) expect(at).toBe(b.text.length)
        else {
          const s = b.sections[index]!
          expect(at).toBeLessThan(s.end)
          expect(at).toBeGreaterThanOrEqual(index === 0 ? 0 : b.sections[index - 1]!.end)
        }
        expect(diff.commonPrefixTokens).toBeLessThanOrEqual(b.tokens)
      }),
    )
  })
})
