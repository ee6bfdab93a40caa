import { createHash } from 'node:crypto'
import { describe, expect, it, vi } from 'vitest'
import type { AssembledSection, PromptAssembly } from '../registry/types.js'
import type { Tokenizer } from './types.js'

// The section memos are there for speed: a harness recompiling an unchanged
// prompt must cost a lookup per section, not a render, a count and a hash.
// So besides what a memo returns, these tests observe the work it saves: the
// epoch numbers `compile` keys validity by, the memo objects themselves (a
// memo taken is the same object, a render makes a new one), the reads of a
// variable's value, and the calls of an injected tokenizer and hash
// function. The memos are module state: each test loads the module afresh.

async function fresh() {
  vi.resetModules()
  const memo = await import('./section-memo.js')
  const { countTokens } = await import('./tokenizers.js')
  const { hashText } = await import('../shared/hash.js')
  return { ...memo, countTokens, hashText }
}

const section = (text: string, dialect: AssembledSection['dialect'] = 'mustache'): AssembledSection => ({
  name: 's',
  order: 10,
  text,
  dialect,
  stability: 'static',
})

const assembly = (
  variables: PromptAssembly['variables'],
  stability: PromptAssembly['stability'] = {},
): PromptAssembly => ({ sections: [], tools: [], variables, stability })

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

describe('contentEpoch', () => {
  it('gives the same content at the watched keys the same number, other content another, never 0', async () => {
    const { contentEpoch, epochFor } = await fresh()
    const base = () => assembly({ a: 'x', b: 'y', other: '1' }, { a: 'turn' })
    const first = contentEpoch(base())
    expect(epochFor(['a', 'b'], first)).toBe(first)
    // Taken before a and b were watched: that snapshot stands for nothing now.
    const watchedNow = contentEpoch(base())
    expect(watchedNow).not.toBe(first)
    expect(contentEpoch(base())).toBe(watchedNow)
    // A key no memo references does not count.
    expect(contentEpoch(assembly({ a: 'x', b: 'y', other: '2' }, { a: 'turn' }))).toBe(watchedNow)
    const others = [
      assembly({ a: 'x', b: 'z' }, { a: 'turn' }),
      assembly({ a: 'w', b: 'y' }, { a: 'turn' }),
      assembly({ a: 'x', b: 'y' }, { a: 'session' }),
      assembly({ a: 'x', b: 'y' }, { a: 'turn', b: 'turn' }),
      assembly({ a: 'x', b: 'y' }, {}),
      assembly({ a: 'x' }, { a: 'turn' }),
      assembly({ a: 'x', b: undefined }, { a: 'turn' }),
    ]
    const numbers = [first, watchedNow]
    for (const other of others) {
      const n = contentEpoch(other)
      expect(numbers).not.toContain(n)
      numbers.push(n)
      expect(contentEpoch(other)).toBe(n)
    }
    expect(numbers).not.toContain(0)
  })

  it('remembers the last four contents, as they alternate', async () => {
    const { contentEpoch, epochFor } = await fresh()
    const content = (v: number) => assembly({ a: `v${v}` })
    epochFor(['a'], contentEpoch(content(0)))
    const numbers = [1, 2, 3, 4].map((v) => contentEpoch(content(v)))
    expect(new Set(numbers).size).toBe(4)
    for (let round = 0; round < 2; round++) {
      for (const v of [1, 2, 3, 4, 2, 1]) expect(contentEpoch(content(v))).toBe(numbers[v - 1])
    }
    // A fifth content pushes out the oldest one (1): the others keep their numbers.
    const fifth = contentEpoch(content(5))
    expect(numbers).not.toContain(fifth)
    for (const v of [2, 3, 4]) expect(contentEpoch(content(v))).toBe(numbers[v - 1])
    expect(contentEpoch(content(5))).toBe(fifth)
    expect(numbers).not.toContain(contentEpoch(content(1)))
  })
})

describe('epochFor', () => {
  it('gives the epoch for keys it watches, and 0 for epoch 0, which watches nothing', async () => {
    const { contentEpoch, epochFor } = await fresh()
    const content = assembly({ a: 'x', b: 'y' })
    const epoch = contentEpoch(content)
    expect(epochFor(['a'], epoch)).toBe(epoch)
    expect(epochFor(['a'], epoch)).toBe(epoch)
    expect(epochFor([], epoch)).toBe(epoch)
    const watchingA = contentEpoch(content)
    expect(epochFor(['b'], 0)).toBe(0)
    // b is not watched: the content still has the number it had.
    expect(contentEpoch(content)).toBe(watchingA)
    expect(contentEpoch(assembly({ a: 'x', b: 'changed' }))).toBe(watchingA)
  })

  it('watches at most 1024 keys, each once; keys past the bound are never marked valid', async () => {
    const { contentEpoch, epochFor } = await fresh()
    const epoch = contentEpoch(assembly({}))
    const half = keys('h', 500)
    expect(epochFor(half, epoch)).toBe(epoch)
    expect(epochFor([...half, ...keys('n', 10)], epoch)).toBe(epoch)
    // 510 keys watched, not 1010: the 500 already watched are not counted again.
    expect(epochFor(keys('m', 100), epoch)).toBe(epoch)
    expect(epochFor([...half, ...keys('m', 100)], epoch)).toBe(epoch)
    // 610 watched: 414 new ones fill the bound exactly.
    expect(epochFor(keys('f', 414), epoch)).toBe(epoch)
    expect(epochFor(['one more'], epoch)).toBe(0)
    expect(epochFor(['one more', 'h0'], epoch)).toBe(0)
    // Keys already watched still are, however many at once.
    expect(epochFor([...half, ...keys('f', 414), ...keys('m', 100)], epoch)).toBe(epoch)
  })

  it('refuses keys that would pass the bound all at once, not only one by one', async () => {
    const { contentEpoch, epochFor } = await fresh()
    const epoch = contentEpoch(assembly({}))
    expect(epochFor(keys('a', 1000), epoch)).toBe(epoch)
    expect(epochFor(keys('b', 100), epoch)).toBe(0)
    expect(epochFor(keys('a', 1000), epoch)).toBe(epoch)
    expect(epochFor(keys('c', 24), epoch)).toBe(epoch)
  })
})

describe('renderSection', () => {
  it('takes a memo only for the same text in the same dialect', async () => {
    const { renderSection } = await fresh()
    const text = 'Hi {{a}}.'
    const variables = assembly({ a: 'X' })
    expect(renderSection(section(text), variables, undefined).text).toBe('Hi X.')
    expect(renderSection(section(text, 'bracket'), variables, undefined).text).toBe('Hi {{a}}.')
    expect(renderSection(section(text), variables, undefined).text).toBe('Hi X.')
  })

  it('renders again, with no epoch, when a value it read has changed', async () => {
    const { renderSection } = await fresh()
    const hello = section('Hello {{a}}{{#if b}}, b{{/if}}.')
    const first = renderSection(hello, assembly({ a: 'x', b: undefined }), undefined)
    expect(first.text).toBe('Hello x.')
    expect(renderSection(hello, assembly({ a: 'x', b: undefined }), undefined)).toBe(first)
    expect(renderSection(hello, assembly({ a: 'y', b: undefined }), undefined).text).toBe('Hello y.')
    expect(renderSection(hello, assembly({ a: 'x', b: 'set' }), undefined).text).toBe('Hello x, b.')
    expect(renderSection(hello, assembly({ a: 'x', b: undefined }), undefined)).toBe(first)
  })

  it('reads none of its keys again under an epoch it was checked under', async () => {
    const { contentEpoch, renderSection } = await fresh()
    let reads = 0
    const variables = {
      get a() {
        reads++
        return 'x'
      },
    } as PromptAssembly['variables']
    const content = assembly(variables)
    const hello = section('Hello {{a}}.')
    const memo = renderSection(hello, content, undefined, contentEpoch(content))
    expect(memo.text).toBe('Hello x.')
    // Now that a is watched, the content has a number of its own; the memo is checked under it once.
    const epoch = contentEpoch(content)
    expect(renderSection(hello, content, undefined, epoch)).toBe(memo)
    expect(contentEpoch(content)).toBe(epoch)
    reads = 0
    expect(renderSection(hello, content, undefined, epoch)).toBe(memo)
    expect(reads).toBe(0)
    // Without an epoch its keys are read.
    expect(renderSection(hello, content, undefined)).toBe(memo)
    expect(reads).toBe(1)
  })

  it('keeps the last four renders of a text, by text or in the registration slot', async () => {
    const { renderSection } = await fresh()
    const { SectionSlot } = await import('../registry/section-slot.js')
    for (const slot of [undefined, new SectionSlot()]) {
      const hello = section(`Hello {{a}}, ${slot === undefined ? 'by text' : 'by slot'}.`)
      const render = (v: number) => renderSection(hello, assembly({ a: `v${v}` }), slot)
      const memos = [1, 2, 3, 4].map(render)
      expect(memos.map((m) => m.text)).toEqual([1, 2, 3, 4].map((v) => hello.text.replace('{{a}}', `v${v}`)))
      for (const v of [1, 2, 3, 4, 4, 3, 2, 1]) expect(render(v)).toBe(memos[v - 1])
      // A fifth render pushes out the oldest: the others are still found.
      const fifth = render(5)
      for (const v of [2, 3, 4]) expect(render(v)).toBe(memos[v - 1])
      expect(render(5)).toBe(fifth)
      const again = render(1)
      expect(again).not.toBe(memos[0])
      expect(again.text).toBe(memos[0]!.text)
    }
  })

  it('keeps a section that renders empty as empty text with no insertions', async () => {
    const { renderSection } = await fresh()
    const optional = section('{{#if a}}A is {{a}}.{{/if}}')
    const empty = renderSection(optional, assembly({ a: undefined }), undefined)
    expect(empty.text).toBe('')
    expect(empty.insertions).toEqual([])
    expect(empty.bytes).toBe(0)
    const full = renderSection(optional, assembly({ a: 'ü' }), undefined)
    expect(full.text).toBe('A is ü.')
    expect(full.insertions).toEqual([{ key: 'a', start: 5, end: 6 }])
    expect(full.bytes).toBe(8)
  })
})

describe('sectionTokens and sectionHash', () => {
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

  it('count an unchanged section once per tokenizer, however often it is asked', async () => {
    const { renderSection, sectionTokens, countTokens } = await fresh()
    const counted: string[] = []
    const chars: Tokenizer = {
      name: 'chars',
      count: (text) => {
        counted.push(text)
        return text.length
      },
    }
    const words: Tokenizer = { name: 'words', count: (text) => text.split(' ').length }
    const memo = renderSection(section('One two {{a}}.'), assembly({ a: 'three' }), undefined)
    expect(sectionTokens(memo, chars)).toBe(14)
    // The count memo of `countTokens` would hide a count made again: push this text out of it.
    countTokens(chars, 'probe')
    for (let i = 0; i < 3 * 4096; i++) countTokens(chars, `flood ${i}`)
    counted.length = 0
    countTokens(chars, 'probe')
    expect(counted, 'the flood pushed the probe out of the count memo').toEqual(['probe'])
    counted.length = 0
    expect(sectionTokens(memo, chars)).toBe(14)
    expect(counted).toEqual([])
    expect(sectionTokens(memo, words)).toBe(3)
    expect(sectionTokens(memo, chars)).toBe(14)
    expect(counted).toEqual(['One two three.'])
  })

  it('hash an unchanged section once per hash function, however often it is asked', async () => {
    const { renderSection, sectionHash, hashText } = await fresh()
    const hashed: string[] = []
    const counting = (text: string) => {
      hashed.push(text)
      return sha256(text)
    }
    const other = (text: string) => `other ${text.length}`
    const memo = renderSection(section('One two {{a}}.'), assembly({ a: 'three' }), undefined)
    expect(sectionHash(memo, counting)).toBe(`sha256:${sha256('One two three.')}`)
    hashText('probe', counting)
    for (let i = 0; i < 3 * 4096; i++) hashText(`flood ${i}`, counting)
    hashed.length = 0
    hashText('probe', counting)
    expect(hashed, 'the flood pushed the probe out of the text memo').toEqual(['probe'])
    hashed.length = 0
    expect(sectionHash(memo, counting)).toBe(`sha256:${sha256('One two three.')}`)
    expect(hashed).toEqual([])
    expect(sectionHash(memo, other)).toBe('sha256:other 14')
    expect(sectionHash(memo)).toBe(`sha256:${sha256('One two three.')}`)
    expect(sectionHash(memo, counting)).toBe(`sha256:${sha256('One two three.')}`)
    expect(hashed).toEqual(['One two three.'])
  })
})
