import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AssembledSection, PromptAssembly } from '../registry/types.js'
import type { HashFunction } from '../shared/hash.js'
import { compile } from './compile.js'

// A harness recompiles the same prompt on every turn: compile promises that an
// unchanged assembly costs a lookup per section, its joined text and hash
// reused rather than hashed again, for the last eight prompts it laid out
// (so a harness alternating between a few prompts keeps them all), and that
// the memo is bounded. Observed through the hash function, which compile
// takes injected: each test counts the texts it is asked to hash.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

function countingHash(): { hash: HashFunction; hashed: string[] } {
  const hashed: string[] = []
  return {
    hashed,
    hash: (text) => {
      hashed.push(text)
      return sha256(text)
    },
  }
}

const section = (name: string, text: string): AssembledSection => ({
  name,
  order: 0,
  text,
  dialect: 'mustache',
  stability: 'static',
})

const prompt = (tag: string): PromptAssembly => ({
  sections: [section('head', `Head of ${tag}.`), section('tail', `Tail of ${tag}.`)],
  tools: [],
  variables: {},
  stability: {},
})

describe('compile: the joined text is hashed once', () => {
  it('hashes each section , the whole text and the (empty) tool list on the first compile, nothing on an unchanged one', () => {
    const { hash, hashed } = countingHash()
    const first = compile(prompt('one'), { hash })
    expect(hashed).toEqual(['Head of one.', 'Tail of one.', 'Head of one.\n\nTail of one.', '[]'])
    hashed.length = 0
    const again = compile(structuredClone(prompt('one')), { hash })
    expect(hashed).toEqual([])
    expect(again).toEqual(first)
    expect(again.hash).toBe(`sha256:${sha256(again.text)}`)
  })

  it('hashes a changed prompt anew, the unchanged section not again', () => {
    const { hash, hashed } = countingHash()
    compile(prompt('two'), { hash })
    hashed.length = 0
    const changed = prompt('two')
    changed.sections[1] = section('tail', 'Another tail.')
    expect(compile(changed, { hash }).hash).toBe(`sha256:${sha256('Head of two.\n\nAnother tail.')}`)
    expect(hashed).toEqual(['Another tail.', 'Head of two.\n\nAnother tail.'])
  })

  it('keeps the last eight prompts; a ninth pushes out the oldest', () => {
    const { hash, hashed } = countingHash()
    const tags = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8']
    for (const tag of tags) compile(prompt(tag), { hash })
    hashed.length = 0
    // Every one of the eight, oldest first, is found without hashing.
    for (const tag of tags) compile(prompt(tag), { hash })
    expect(hashed).toEqual([])
    compile(prompt('p9'), { hash })
    hashed.length = 0
    // p1 was pushed out: its joined text is hashed again (its sections are
    // in the memo of section hashes); p2 to p8 and p9 are still there.
    expect(compile(prompt('p1'), { hash }).hash).toBe(`sha256:${sha256('Head of p1.\n\nTail of p1.')}`)
    expect(hashed).toEqual(['Head of p1.\n\nTail of p1.'])
    hashed.length = 0
    for (const tag of ['p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']) compile(prompt(tag), { hash })
    expect(hashed).toEqual([])
  })

  it('keeps the layouts of two hash functions apart', () => {
    const one = countingHash()
    const other = countingHash()
    compile(prompt('apart'), { hash: one.hash })
    compile(prompt('apart'), { hash: other.hash })
    expect(other.hashed).toContain('Head of apart.\n\nTail of apart.')
  })
})
