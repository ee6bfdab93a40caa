import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { tokenizeBracket } from './tokenize-bracket.js'
import { type Tag, TagKind } from './tokens.js'

/**
 * The bracket tags of SPEC §2, read the slow, obvious way: every `[` whose
 * next bracket is a `]` encloses a candidate; it is a tag when it is `else`,
 * `endif`, `if`, one or more spaces, an optional `!` and a namespaced key, or
 * a namespaced key alone. Scanning resumes after a tag, else after the `[`.
 */
function referenceTags(source: string): Tag[] {
  const namespaced = /^[a-z][a-z0-9_-]*:[^\s[\]{}\ufeff]+$/
  const tags: Tag[] = []
  let p = source.indexOf('[')
  while (p >= 0) {
    const close = source.slice(p + 1).search(/[[\]]/)
    const end = close === -1 ? -1 : p + 1 + close
    let next = p + 1
    if (end >= 0 && source[end] === ']') {
      const inner = source.slice(p + 1, end)
      const ifTag = /^if +(!?)(.*)$/.exec(inner)
      const tag = (kind: TagKind, key = '', negated = false): void => {
        tags.push({ kind, start: p, end: end + 1, key, negated })
        next = end + 1
      }
      if (inner === 'else') tag(TagKind.Else)
      else if (inner === 'endif') tag(TagKind.End)
      else if (ifTag !== null && namespaced.test(ifTag[2]!)) tag(TagKind.If, ifTag[2], ifTag[1] === '!')
      else if (namespaced.test(inner)) tag(TagKind.Insert, inner)
    }
    p = source.indexOf('[', next)
  }
  return tags
}

describe('bracket tokenizer', () => {
  it('finds exactly the tags the specification defines, wherever brackets nest or stay open', () => {
    const piece = fc.constantFrom(
      '[',
      ']',
      'if',
      'if ',
      ' ',
      '!',
      'else',
      'endif',
      'ns',
      'git-x',
      ':',
      'key',
      '/a.md',
      '_',
      '{',
      '}',
      '\t',
      '\u00a0',
      '\u3000',
      'é',
      '\n',
      '0',
      'X',
      // Whole pieces of tags, so that complete ones are common.
      '[if !',
      '[if  ',
      'ns:key]',
      '[else]',
      '[endif]',
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (parts) => {
        const source = parts.join('')
        expect(tokenizeBracket(source).tags).toEqual(referenceTags(source))
      }),
      { numRuns: propertyRuns(3000) },
    )
  })

  it('reads negated and spaced if tags, and only namespaced keys', () => {
    const tags = tokenizeBracket('[if  !git:branch]a[else]b[endif][if x]c[if ! ns:k][ns:k]').tags
    expect(tags.map((t) => [t.kind, t.key, t.negated])).toEqual([
      [TagKind.If, 'git:branch', true],
      [TagKind.Else, '', false],
      [TagKind.End, '', false],
      [TagKind.Insert, 'ns:k', false],
    ])
  })
})
