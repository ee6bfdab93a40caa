import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { compileTemplate } from './index.js'
import { tokenizeMustache } from './tokenize-mustache.js'
import { type Malformed, type Tag, TagKind, type TokenizeResult } from './tokens.js'

const NAME = /^[a-z][a-z0-9_]*$/
const NAMESPACED = /^[a-z][a-z0-9_-]*:[^\s[\]{}\ufeff]+$/
const RESERVED = new Set(['if', 'else', 'endif'])

function isKey(text: string): boolean {
  return (NAME.test(text) && !RESERVED.has(text)) || NAMESPACED.test(text)
}

/**
 * The mustache tags of SPEC §2, read the slow, obvious way: at each `{{`,
 * the text up to the next brace is a complete group when `}}` follows it;
 * the group is `else`, `/if`, `#if`, spaces, an optional `!` and a key, or a
 * key alone, and otherwise malformed. A `{{` that opens no complete group is
 * malformed (unpaired) when a `}}` comes anywhere after it. Scanning resumes
 * after a complete group, else after the `{{`.
 */
function reference(source: string): TokenizeResult {
  const tags: Tag[] = []
  const malformed: Malformed[] = []
  let p = source.indexOf('{{')
  while (p >= 0) {
    const from = p + 2
    const brace = source.slice(from).search(/[{}]/)
    const q = brace === -1 ? -1 : from + brace
    let next = from
    if (q >= 0 && source.startsWith('}}', q)) {
      const inner = source.slice(from, q)
      const end = q + 2
      const ifTag = /^#if +(!?)(.*)$/.exec(inner)
      const tag = (kind: TagKind, key = '', negated = false): void => {
        tags.push({ kind, start: p, end, key, negated })
      }
      if (inner === 'else') tag(TagKind.Else)
      else if (inner === '/if') tag(TagKind.End)
      else if (ifTag !== null && isKey(ifTag[2]!)) tag(TagKind.If, ifTag[2], ifTag[1] === '!')
      else if (isKey(inner)) tag(TagKind.Insert, inner)
      else malformed.push({ start: p, end, unpaired: false })
      next = end
    } else if (source.indexOf('}}', from) >= 0) {
      malformed.push({ start: p, end: from, unpaired: true })
    }
    p = source.indexOf('{{', next)
  }
  return { tags, malformed }
}

describe('mustache tokenizer', () => {
  it('finds exactly the tags and malformed spans the specification defines (property)', () => {
    const piece = fc.constantFrom(
      '{{',
      '}}',
      '{',
      '}',
      '#if',
      '#if ',
      ' ',
      '!',
      'else',
      '/if',
      'if',
      'endif',
      'a',
      'x1',
      'ns:k',
      'my-ns',
      ':',
      '-',
      '_',
      '\t',
      '\n',
      'é',
      '[',
      ']',
      '#',
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const source = pieces.join('')
        expect(tokenizeMustache(source)).toEqual(reference(source))
      }),
      { numRuns: propertyRuns(2_000) },
    )
  })

  it('reads each tag kind with its offsets and key', () => {
    expect(tokenizeMustache('a{{x}}{{#if  !git:dirty}}{{else}}{{/if}}').tags).toEqual([
      { kind: TagKind.Insert, start: 1, end: 6, key: 'x', negated: false },
      { kind: TagKind.If, start: 6, end: 25, key: 'git:dirty', negated: true },
      { kind: TagKind.Else, start: 25, end: 33, key: '', negated: false },
      { kind: TagKind.End, start: 33, end: 40, key: '', negated: false },
    ])
  })

  it('marks a {{ that opens no group as unpaired, and a complete bad group as not', () => {
    expect(tokenizeMustache('{{{x}} {{ y }} {{').malformed).toEqual([
      { start: 0, end: 2, unpaired: true },
      { start: 7, end: 14, unpaired: false },
    ])
    // No `}}` after it: prose, not malformed.
    expect(tokenizeMustache('}} {{ x').malformed).toEqual([])
    // Unpaired past the start of the source: still a span of just the braces.
    expect(tokenizeMustache('x {{ {{a}}')).toEqual({
      tags: [{ kind: TagKind.Insert, start: 5, end: 10, key: 'a', negated: false }],
      malformed: [{ start: 2, end: 4, unpaired: true }],
    })
  })

  it('a group cut short by an opening brace is not closed by a single closing brace after it', () => {
    // `{}` is not `}}`: these `{{` open no complete group and no `}}` follows, so they are prose.
    for (const source of ['{{a{}', 'x {{{} y', '{{ns:k{}z']) {
      expect(tokenizeMustache(source)).toEqual({ tags: [], malformed: [] })
      expect(compileTemplate(source).render({})).toBe(source)
    }
    // With a `}}` later the `{{` is unpaired, whatever brace cut it short.
    expect(tokenizeMustache('{{a{} }}').malformed).toEqual([{ start: 0, end: 2, unpaired: true }])
  })

  it('keeps every tag of a long source, and then tokenizes a short one afresh', () => {
    const many = '{{a}}{{ b }}'.repeat(5_000)
    const long = tokenizeMustache(many)
    expect(long.tags).toHaveLength(5_000)
    expect(long.malformed).toHaveLength(5_000)
    expect(long.tags[4_999]).toEqual({
      kind: TagKind.Insert,
      start: 59_988,
      end: 59_993,
      key: 'a',
      negated: false,
    })
    expect(long.malformed[4_999]).toEqual({ start: 59_993, end: 60_000, unpaired: false })
    expect(tokenizeMustache('{{c}}')).toEqual({
      tags: [{ kind: TagKind.Insert, start: 0, end: 5, key: 'c', negated: false }],
      malformed: [],
    })
  })
})
