import { describe, expect, it } from 'vitest'
import { compileTemplate, isValidKey, keyNamespace } from './index.js'
import { isPlainName, KeySlots, keyKind } from './keys.js'

const plainNames = [
  'a',
  'model',
  'cwd',
  'x1',
  'v0',
  'snake_case_name',
  'a_1_b',
  'iff',
  'elsewhere',
  'endifs',
  'z9',
]
const namespacedKeys = [
  'git:branch',
  'git:status',
  'prompt:conversation_id',
  'file:docs/AGENTS.md',
  'file:../up/a_b',
  'file:C:\\x',
  'env:HOME',
  'my-ns:x',
  'ns0:x',
  'a-0:b',
  'v2-9:x',
  'a-_b:c',
  'a_b-c:d',
  'ns:a:b',
  'ns:!',
  'ns:é',
  'ns:😀',
  'ns:(x)',
  'https://example.com',
]
const notKeys = [
  '',
  ' ',
  'if',
  'else',
  'endif',
  'Model',
  'mOdel',
  '1a',
  '_a',
  'a-b',
  'a.b',
  'a b',
  ' a',
  'a ',
  'a\n',
  ':b',
  'ns:',
  '-ns:b',
  'Ns:b',
  'n s:b',
  'ns.x:b',
  'ns:a b',
  'ns:a\tb',
  'ns:a\nb',
  'ns:a\u00a0b',
  'ns:a\u2003b',
  'ns:a\u3000b',
  'ns:a\ufeffb',
  'ns:a[b',
  'ns:a]b',
  'ns:a{b',
  'ns:a}b',
  'é',
  '#if',
  '!a',
]

describe('key syntax', () => {
  for (const key of plainNames) {
    it(`accepts the plain name ${JSON.stringify(key)}`, () => {
      expect(isValidKey(key)).toBe(true)
      expect(isPlainName(key)).toBe(true)
      expect(keyKind(key, 0, key.length)).toBe('name')
      expect(keyNamespace(key)).toBeUndefined()
    })
  }

  for (const key of namespacedKeys) {
    it(`accepts the namespaced key ${JSON.stringify(key)}`, () => {
      expect(isValidKey(key)).toBe(true)
      expect(isPlainName(key)).toBe(false)
      expect(keyKind(key, 0, key.length)).toBe('namespaced')
    })
  }

  for (const key of notKeys) {
    it(`rejects ${JSON.stringify(key)}`, () => {
      expect(isValidKey(key)).toBe(false)
      expect(isPlainName(key)).toBe(false)
      expect(keyNamespace(key)).toBeUndefined()
    })
  }

  it('gives the namespace: the part before the first colon', () => {
    expect(keyNamespace('git:branch')).toBe('git')
    expect(keyNamespace('file:docs/A.md')).toBe('file')
    expect(keyNamespace('my-ns:a:b')).toBe('my-ns')
  })

  it('classifies a slice of a longer text', () => {
    const text = '{{git:branch}}'
    expect(keyKind(text, 2, 12)).toBe('namespaced')
    expect(keyKind(text, 2, 5)).toBe('name')
    expect(keyKind(text, 2, 2)).toBeNull()
    // Nothing past `end` counts, whatever follows it.
    expect(keyKind('a:b', 0, 0)).toBeNull()
    expect(keyKind('ab', 0, 1)).toBe('name')
    expect(keyKind('a-b:c', 0, 2)).toBeNull()
    expect(keyKind('a-:b', 0, 2)).toBeNull()
    expect(keyKind('ns:x y', 0, 4)).toBe('namespaced')
  })
})

describe('keys in templates', () => {
  it('the mustache dialect takes both forms', () => {
    const template = compileTemplate('{{model}}|{{git:branch}}')
    expect(template.render({ model: 'm', 'git:branch': 'b' })).toBe('m|b')
  })

  it('the bracket dialect takes only namespaced keys', () => {
    const template = compileTemplate('[model]|[git:branch]|[if model]x[endif]', { dialect: 'bracket' })
    expect(template.variables).toEqual(['git:branch'])
    expect(template.render({ model: 'm', 'git:branch': 'b' })).toBe('[model]|b|[if model]x[endif]')
  })

  it('every namespaced key works in both dialects', () => {
    for (const key of namespacedKeys) {
      expect(compileTemplate(`<{{${key}}}>`).render({ [key]: 'v' })).toBe('<v>')
      expect(compileTemplate(`<[${key}]>`, { dialect: 'bracket' }).render({ [key]: 'v' })).toBe('<v>')
    }
  })

  it('strings that are not keys never make tags', () => {
    for (const key of notKeys) {
      // `{{else}}` is a block tag of its own (a stray one here), not a reference.
      if (key.includes('{') || key.includes('}') || key === 'else') continue
      const template = compileTemplate(`{{${key}}}`, { strict: false })
      expect(template.variables).toEqual([])
      expect(template.diagnostics.map((d) => d.code)).toEqual(['malformed-reference'])
    }
  })
})

describe('what ends a namespaced key', () => {
  // Whitespace (JavaScript's `\s`), brackets and braces may not appear in a
  // key's rest; the characters next to each range may.
  const stops = [
    '\t',
    '\n',
    '\v',
    '\f',
    '\r',
    ' ',
    '\u00a0',
    '\u1680',
    '\u2000',
    '\u2005',
    '\u200a',
    '\u2028',
    '\u2029',
    '\u202f',
    '\u205f',
    '\u3000',
    '\ufeff',
    '[',
    ']',
    '{',
    '}',
  ]
  const neighbours = [
    '\u0008',
    '\u000e',
    '\u001f',
    '!',
    '\u009f',
    '\u00a1',
    '\u167f',
    '\u1681',
    '\u1fff',
    '\u200b',
    '\u2027',
    '\u202a',
    '\u202e',
    '\u2030',
    '\u205e',
    '\u2060',
    '\u2fff',
    '\u3001',
    '\ufefe',
    '\uff00',
    '\\',
    '|',
    '~',
  ]

  for (const c of stops) {
    it(`U+${c.charCodeAt(0).toString(16).padStart(4, '0')} is not part of a key`, () => {
      expect(isValidKey(`ns:a${c}b`)).toBe(false)
      expect(isValidKey(`ns:${c}`)).toBe(false)
      expect(compileTemplate(`{{ns:a${c}b}}`, { strict: false }).variables).toEqual([])
    })
  }

  it('the characters next to those ranges are', () => {
    for (const c of neighbours) {
      expect(isValidKey(`ns:a${c}b`)).toBe(true)
      expect(keyKind(`ns:${c}`, 0, 4)).toBe('namespaced')
      expect(compileTemplate(`{{ns:a${c}b}}`).variables).toEqual([`ns:a${c}b`])
      expect(compileTemplate(`[ns:a${c}b]`, { dialect: 'bracket' }).variables).toEqual([`ns:a${c}b`])
    }
  })
})

describe('key slots across very many templates', () => {
  it('still give each template fresh slots when the template counter wraps', () => {
    const slots = new KeySlots()
    const read = (keys: string[]): { variables: string[]; slots: number[] } => {
      slots.begin()
      const text = keys.join(' ')
      const found: number[] = []
      let at = 0
      for (const key of keys) {
        found.push(slots.slotOf(text, at, at + key.length, at))
        at += key.length + 1
      }
      return { variables: slots.finish().variables, slots: found }
    }
    expect(read(['a1', 'b1', 'a1'])).toEqual({ variables: ['a1', 'b1'], slots: [0, 1, 0] })
    // The counter of templates is an int32: force the wrap a long-lived process reaches after 2³¹ templates.
    ;(slots as unknown as { generation: number }).generation = 0x7ffffffe
    expect(read(['b1', 'c1'])).toEqual({ variables: ['b1', 'c1'], slots: [0, 1] })
    expect(read(['c1', 'a1', 'b1', 'c1'])).toEqual({ variables: ['c1', 'a1', 'b1'], slots: [0, 1, 2, 0] })
    expect(read(['a1'])).toEqual({ variables: ['a1'], slots: [0] })
  })
})
