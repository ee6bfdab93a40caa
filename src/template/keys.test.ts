import { describe, expect, it } from 'vitest'
import { compileTemplate, isValidKey, keyNamespace } from './index.js'
import { isPlainName, keyKind } from './keys.js'

const plainNames = ['a', 'model', 'cwd', 'x1', 'snake_case_name', 'a_1_b', 'iff', 'elsewhere', 'endifs', 'z9']
const namespacedKeys = [
  'git:branch',
  'git:status',
  'prompt:conversation_id',
  'file:docs/AGENTS.md',
  'file:../up/a_b',
  'file:C:\\x',
  'env:HOME',
  'my-ns:x',
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
