import { describe, expect, it } from 'vitest'
import { compileTemplate, TemplateError } from './index.js'

type Values = ReadonlyMap<string, string | null> | Readonly<Record<string, string | null>>

/** Renders a bracket-dialect template in its default (lenient) mode. */
function bracket(source: string, values: Values = new Map()): string {
  return compileTemplate(source, { dialect: 'bracket' }).render(values)
}

function keysOf(source: string): readonly string[] {
  return compileTemplate(source, { dialect: 'bracket' }).variables
}

function strictError(source: string, values: Values = {}): TemplateError {
  try {
    compileTemplate(source, { dialect: 'bracket', strict: true }).render(values)
  } catch (error) {
    if (error instanceof TemplateError) return error
    throw error
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail in strict bracket mode`)
}

describe('bracket dialect: defaults', () => {
  it('is lenient unless asked otherwise', () => {
    const template = compileTemplate('[git:branch]', { dialect: 'bracket' })
    expect(template.dialect).toBe('bracket')
    expect(template.strict).toBe(false)
    expect(template.diagnostics).toEqual([])
  })
})

describe('bracket dialect: insertion', () => {
  it('replaces a tag with its value', () => {
    expect(bracket('[system:date]', new Map([['system:date', '2031-02-03']]))).toBe('2031-02-03')
  })

  it('renders a key missing from the values as nothing', () => {
    expect(bracket('<[nothing:here]>')).toBe('<>')
  })

  it('renders a key whose value is null as nothing', () => {
    expect(bracket('<[file:gone.txt]>', new Map([['file:gone.txt', null]]))).toBe('<>')
  })

  it('splices a value into the middle of prose', () => {
    expect(
      bracket('Working in [prompt:cwd], branch [git:branch].', {
        'prompt:cwd': '/srv/app',
        'git:branch': 'dev',
      }),
    ).toBe('Working in /srv/app, branch dev.')
  })

  it('keeps bracketed prose that is not a tag', () => {
    expect(bracket('see [some notes here] below')).toBe('see [some notes here] below')
  })

  it('keeps an opening bracket that never closes', () => {
    expect(bracket('tail [git:branch')).toBe('tail [git:branch')
  })

  it('renders the empty string as a present, empty value', () => {
    expect(bracket('a[x:y]b', { 'x:y': '' })).toBe('ab')
  })

  it('inserts keys whose names carry paths and punctuation', () => {
    expect(bracket('[file:docs/AGENTS.md]', { 'file:docs/AGENTS.md': 'rules' })).toBe('rules')
    expect(bracket('[prompt:conversation_id]', { 'prompt:conversation_id': 'c-1' })).toBe('c-1')
    expect(bracket('[env:HOME]', { 'env:HOME': '/home/u' })).toBe('/home/u')
    expect(bracket('[my-ns:a.b-c]', { 'my-ns:a.b-c': 'ok' })).toBe('ok')
  })

  it('uses the innermost bracket pair when brackets are doubled', () => {
    expect(bracket('[[git:branch]]', { 'git:branch': 'main' })).toBe('[main]')
  })
})

describe('bracket dialect: conditionals', () => {
  it('shows the body when the key has a value', () => {
    expect(bracket('[if file:README.md]has readme[endif]', { 'file:README.md': '# hi' })).toBe('has readme')
  })

  it('hides the body when the value is null', () => {
    expect(bracket('[if file:README.md]has readme[endif]', { 'file:README.md': null })).toBe('')
  })

  it('hides the body when the key is missing', () => {
    expect(bracket('[if file:README.md]has readme[endif]')).toBe('')
  })

  it('treats the empty string as present', () => {
    expect(bracket('[if file:empty]yes[else]no[endif]', { 'file:empty': '' })).toBe('yes')
  })

  it('takes the else branch when the value is null', () => {
    expect(bracket('[if git:status]dirty[else]clean[endif]', { 'git:status': null })).toBe('clean')
  })

  it('takes the first branch when the value is present', () => {
    expect(bracket('[if git:status]dirty[else]clean[endif]', { 'git:status': 'M a.ts' })).toBe('dirty')
  })

  it('negation shows the body for a null value', () => {
    expect(bracket('[if !git:branch]no repo[endif]', { 'git:branch': null })).toBe('no repo')
  })

  it('negation hides the body for a present value', () => {
    expect(bracket('[if !git:branch]no repo[endif]', { 'git:branch': 'main' })).toBe('')
  })

  it('negation shows the body for a missing key', () => {
    expect(bracket('[if !git:branch]no repo[endif]')).toBe('no repo')
  })

  it('negation takes the else branch for a present value', () => {
    expect(bracket('[if !git:branch]none[else]on [git:branch][endif]', { 'git:branch': 'main' })).toBe(
      'on main',
    )
  })

  it('hides a nested body when the inner key is null even though the outer is set', () => {
    const values = { 'system:os': 'linux 6.1', 'file:NOTES.md': null }
    expect(bracket('[if system:os][if file:NOTES.md]notes[endif][endif]', values)).toBe('')
  })

  it('shows a nested body when both keys are set', () => {
    const values = { 'system:os': 'linux 6.1', 'file:NOTES.md': 'n' }
    expect(bracket('[if system:os][if file:NOTES.md]notes[endif][endif]', values)).toBe('notes')
  })

  it('hides everything nested under a false outer block', () => {
    const values = { 'system:os': null, 'file:NOTES.md': 'n' }
    expect(bracket('[if system:os]os:[if file:NOTES.md]notes[endif][endif]', values)).toBe('')
  })

  it('handles an if/else nested inside a taken block', () => {
    const values = { 'system:os': 'linux', 'file:NOTES.md': null }
    expect(bracket('[if system:os]<[if file:NOTES.md]with[else]without[endif]>[endif]', values)).toBe(
      '<without>',
    )
  })

  it('handles an else branch that holds its own block', () => {
    const values = { 'a:x': null, 'b:y': 'B' }
    expect(bracket('[if a:x]A[else][if b:y][b:y]![endif][endif]', values)).toBe('B!')
  })

  it('keeps an if without endif as literal text, with a present value', () => {
    expect(bracket('[if file:TODO]pending', { 'file:TODO': 'x' })).toBe('[if file:TODO]pending')
  })

  it('keeps an if without endif as literal text, with a null value', () => {
    expect(bracket('[if file:TODO]pending', { 'file:TODO': null })).toBe('[if file:TODO]pending')
  })

  it('still processes the contents of an unclosed if as ordinary text', () => {
    expect(bracket('[if a:x]v=[a:x]', { 'a:x': '1' })).toBe('[if a:x]v=1')
  })

  it('pairs endif with the innermost if, leaving an outer unclosed if literal', () => {
    expect(bracket('[if a:x]A[if b:y]B[endif]C', { 'a:x': null, 'b:y': 'v' })).toBe('[if a:x]ABC')
    expect(bracket('[if a:x]A[if b:y]B[endif]C', { 'a:x': 'v', 'b:y': null })).toBe('[if a:x]AC')
  })

  it('keeps an else of an unclosed if literal too', () => {
    expect(bracket('[if a:x]A[else]B', { 'a:x': 'v' })).toBe('[if a:x]A[else]B')
  })

  it('keeps a stray endif as literal text', () => {
    expect(bracket('before[endif]after')).toBe('before[endif]after')
  })

  it('keeps a stray else as literal text', () => {
    expect(bracket('before[else]after')).toBe('before[else]after')
  })

  it('keeps an endif after a closed block as literal text', () => {
    expect(bracket('[if a:x]A[endif][endif]', { 'a:x': 'v' })).toBe('A[endif]')
  })

  it('treats a second else as literal text of the else branch', () => {
    const source = '[if a:x]one[else]two[else]three[endif]'
    expect(bracket(source, { 'a:x': null })).toBe('two[else]three')
    expect(bracket(source, { 'a:x': 'v' })).toBe('one')
  })

  it('accepts several spaces between if and the key', () => {
    expect(bracket('[if   a:x]yes[endif]', { 'a:x': 'v' })).toBe('yes')
    expect(bracket('[if   !a:x]yes[endif]', {})).toBe('yes')
  })

  it('keeps tags with other whitespace as text', () => {
    for (const source of [
      '[ a:x]',
      '[a:x ]',
      '[if\ta:x]',
      '[if a:x ]',
      '[ else]',
      '[endif ]',
      '[if\na:x]',
      '[if ! a:x]',
    ]) {
      expect(bracket(source, { 'a:x': 'v' })).toBe(source)
    }
  })

  it('keeps a body that spans several lines', () => {
    const source = '[if file:AGENTS.md]first\nsecond\nthird[endif]'
    expect(bracket(source, { 'file:AGENTS.md': 'x' })).toBe('first\nsecond\nthird')
  })

  it('keeps the newlines around the branches of a multi-line if/else', () => {
    const source = '[if file:A]\none\n[else]\ntwo\n[endif]'
    expect(bracket(source, { 'file:A': null })).toBe('\ntwo\n')
    expect(bracket(source, { 'file:A': 'v' })).toBe('\none\n')
  })

  it('renders a small default-style template with the instruction file', () => {
    const source = [
      'You help with code.',
      '',
      '[if file:AGENTS.md]',
      '[file:AGENTS.md]',
      '[endif]',
      '',
      'Directory: [prompt:cwd]',
      '',
    ].join('\n')
    const out = bracket(source, { 'file:AGENTS.md': 'Use tabs.', 'prompt:cwd': '/srv/x' })
    expect(out).toBe('You help with code.\n\n\nUse tabs.\n\n\nDirectory: /srv/x\n')
  })

  it('renders the same template without the instruction file', () => {
    const source = '[if file:AGENTS.md]\n[file:AGENTS.md]\n[endif]\nDirectory: [prompt:cwd]'
    expect(bracket(source, { 'prompt:cwd': '/srv/x' })).toBe('\nDirectory: /srv/x')
  })
})

describe('bracket dialect: variables', () => {
  it('lists inserted and tested keys in order of first appearance', () => {
    expect(keysOf('[system:date] [if file:A.md][file:A.md][endif] [if !git:branch]')).toEqual([
      'system:date',
      'file:A.md',
      'git:branch',
    ])
  })

  it('lists each key once', () => {
    expect(keysOf('[file:A][if file:A][file:A][else][file:A][endif]')).toEqual(['file:A'])
  })

  it('lists nothing for plain text', () => {
    expect(keysOf('just words, [and] brackets')).toEqual([])
  })

  it('lists the key of an if left without endif', () => {
    expect(keysOf('[if file:A]never closed')).toEqual(['file:A'])
  })
})

describe('bracket dialect: Markdown stays text', () => {
  const markdown = [
    '- [x] done',
    '- [ ] open',
    '[todo]',
    '[docs](https://example.com/docs)',
    '[ ]',
    '[x',
    'x]',
    '[]',
    '[[wiki link]]',
    '![alt text](img.png)',
    '[link][ref]\n\n[ref]: https://example.com',
    'array[0] = a[i][j]',
    '[if]',
    '[if x]',
    '[else x]',
    '[model]',
    '[Git:branch]',
    '[:branch]',
    '[git:]',
    '[see: docs]',
  ]
  for (const source of markdown) {
    it(`keeps ${JSON.stringify(source)} verbatim`, () => {
      const template = compileTemplate(source, { dialect: 'bracket' })
      expect(template.render({})).toBe(source)
      expect(template.variables).toEqual([])
      expect(template.diagnostics).toEqual([])
    })
  }

  it('keeps Markdown verbatim in strict mode as well', () => {
    const source = '- [x] done\n- [ ] todo\n[docs](url) [todo] [x'
    expect(compileTemplate(source, { dialect: 'bracket', strict: true }).render({})).toBe(source)
  })

  it('mixes Markdown and tags', () => {
    expect(bracket('- [x] on [git:branch]\n- [ ] push', { 'git:branch': 'main' })).toBe(
      '- [x] on main\n- [ ] push',
    )
  })

  it('leaves mustache syntax alone', () => {
    expect(bracket('{{model}} {{#if x}}', {})).toBe('{{model}} {{#if x}}')
  })
})

describe('bracket dialect: strict mode', () => {
  it('renders well-formed templates like lenient mode', () => {
    const source = '[if a:x]<[a:x]>[else]none[endif]'
    const strict = compileTemplate(source, { dialect: 'bracket', strict: true })
    expect(strict.strict).toBe(true)
    expect(strict.render({ 'a:x': '1' })).toBe('<1>')
    expect(strict.render({ 'a:x': null })).toBe('none')
  })

  it('rejects an unclosed if', () => {
    const error = strictError('ok\n  [if file:X]text')
    expect(error.code).toBe('unclosed-block')
    expect([error.line, error.column]).toEqual([2, 3])
  })

  it('rejects a stray endif and a stray else', () => {
    expect(strictError('a[endif]').code).toBe('stray-tag')
    expect(strictError('a[else]').code).toBe('stray-tag')
  })

  it('rejects a second else', () => {
    const error = strictError('[if a:x]1[else]2[else]3[endif]', { 'a:x': null })
    expect(error.code).toBe('stray-tag')
    expect(error.column).toBe(17)
  })

  it('rejects unknown keys, even in a branch not taken', () => {
    const error = strictError('[if a:x][typo:y][endif]', { 'a:x': null })
    expect(error.code).toBe('unknown-variable')
    expect(error.column).toBe(9)
  })

  it('rejects an insertion without a value but not a condition without one', () => {
    expect(strictError('[a:x]', { 'a:x': null }).code).toBe('valueless-variable')
    expect(
      compileTemplate('[if a:x]A[else]B[endif]', { dialect: 'bracket', strict: true }).render({
        'a:x': null,
      }),
    ).toBe('B')
  })
})
