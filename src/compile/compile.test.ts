import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AssembledSection, PromptAssembly, ToolSchema } from '../registry/types.js'
import { canonicalJson } from '../shared/hash.js'
import { compile } from './compile.js'
import { CompileError } from './errors.js'
import { cl100k, o200k } from './tokenizers.js'
import type { Tokenizer } from './types.js'

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

function section(name: string, text: string, extra: Partial<AssembledSection> = {}): AssembledSection {
  return { name, order: 0, text, dialect: 'mustache', stability: 'static', ...extra }
}

function assembly(sections: AssembledSection[], extra: Partial<PromptAssembly> = {}): PromptAssembly {
  return { sections, tools: [], variables: {}, stability: {}, ...extra }
}

/** A tokenizer that records every text it is asked to count (one word = one token). */
function countingTokenizer(): Tokenizer & { seen: string[] } {
  const seen: string[] = []
  return {
    name: 'words',
    seen,
    count(text) {
      seen.push(text)
      return text.split(/\s+/).filter(Boolean).length + 1
    },
  }
}

describe('compile: text, hash and spans', () => {
  const a = assembly(
    [
      section('identity', 'You are Ünïcode-friendly 🤖.', { order: -100 }),
      section('empty', '   \n\n  '),
      section('persona', 'Persona for {{user}}.\r\nSecond line.   \n\n'),
      section('guarded', '{{#if missing}}only when missing is set{{/if}}'),
      section('tools', '\n\n  indented first line\nlast'),
    ],
    { variables: { user: 'Ada', missing: undefined } },
  )

  it('joins the non-empty sections with one blank line and normalises them', () => {
    const c = compile(a)
    expect(c.text).toBe(
      'You are Ünïcode-friendly 🤖.\n\nPersona for Ada.\nSecond line.\n\n  indented first line\nlast',
    )
  })

  it('hashes the UTF-8 text as sha256: + hex', () => {
    const c = compile(a)
    expect(c.hash).toBe(`sha256:${sha256(c.text)}`)
    expect(c.bytes).toBe(Buffer.byteLength(c.text, 'utf8'))
    for (const s of c.sections) expect(s.hash).toBe(`sha256:${sha256(c.text.slice(s.start, s.end))}`)
  })

  it('takes a faster hash function and gives the same digests', () => {
    const fast = (text: string) => sha256(text)
    expect(compile(a, { hash: fast }).hash).toBe(compile(a).hash)
  })

  it('gives spans that slice the text, and leaves empty sections out entirely', () => {
    const c = compile(a)
    expect(c.sections.map((s) => s.name)).toEqual(['identity', 'persona', 'tools'])
    expect(c.sections.map((s) => c.text.slice(s.start, s.end))).toEqual([
      'You are Ünïcode-friendly 🤖.',
      'Persona for Ada.\nSecond line.',
      '  indented first line\nlast',
    ])
    expect(c.sections[0]!.start).toBe(0)
    expect(c.sections.at(-1)!.end).toBe(c.text.length)
    expect(c.sections.map((s) => s.order)).toEqual([-100, 0, 0])
  })

  it('compiles an assembly with nothing to say to the empty prompt', () => {
    const c = compile(assembly([section('blank', '  ')]))
    expect(c).toMatchObject({ text: '', bytes: 0, tokens: 0, sections: [], cuts: [], warnings: [] })
    expect(c.hash).toBe(`sha256:${sha256('')}`)
    expect(c.stablePrefix).toEqual({ static: { end: 0, tokens: 0 }, session: { end: 0, tokens: 0 } })
  })

  it('passes the fragment manifest through, defaulting to none', () => {
    const manifest = [
      { id: 'identity', source: 'fragments/identity.md', contentHash: 'sha256:ab', dynamic: false },
    ]
    expect(compile(a).manifest).toEqual([])
    expect(compile(a, { manifest }).manifest).toEqual(manifest)
  })

  it('re-renders whenever a referenced value, its presence, the dialect or the name differs', () => {
    const guarded = section('g', '{{#if x}}yes{{/if}}[if y:z]bracket[endif]')
    expect(compile(assembly([guarded], { variables: { x: 'v' } })).text).toBe('yes[if y:z]bracket[endif]')
    expect(compile(assembly([guarded], { variables: { x: undefined } })).text).toBe('[if y:z]bracket[endif]')
    expect(() => compile(assembly([guarded], { variables: {} }))).toThrow(/unknown variable "x"/)
    const asBracket = { ...guarded, dialect: 'bracket' as const }
    expect(compile(assembly([asBracket], { variables: { 'y:z': 'on' } })).text).toBe(
      '{{#if x}}yes{{/if}}bracket',
    )
    expect(compile(assembly([asBracket], { variables: {} })).text).toBe('{{#if x}}yes{{/if}}')
    const renamed = compile(assembly([{ ...guarded, name: 'other' }], { variables: { x: 'v' } }))
    expect(renamed.sections[0]!.name).toBe('other')
  })

  it('propagates template errors naming the section', () => {
    expect(() => compile(assembly([section('bad', 'Hi {{nobody}}')]))).toThrow(/nobody/)
  })
})

describe('compile: tokens', () => {
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20)
  const a = assembly([section('one', text), section('two', `# Rules\n${text}`), section('three', 'Done.')])

  it('defaults to o200k and sums the section counts and the separators', () => {
    const c = compile(a)
    expect(c.tokenizer).toBe('o200k')
    const sum = c.sections.reduce((n, s) => n + s.tokens, 0) + 2 * o200k.count('\n\n')
    expect(c.tokens).toBe(sum)
    expect(Math.abs(c.tokens - o200k.count(c.text))).toBeLessThanOrEqual(4)
    expect(c.exactTokens).toBeUndefined()
  })

  it('counts the whole text as well when asked', () => {
    const c = compile(a, { exactTokens: true, tokenizer: 'cl100k' })
    expect(c.tokenizer).toBe('cl100k')
    expect(c.exactTokens).toBe(cl100k.count(c.text))
  })

  it('uses estimate and custom tokenizers', () => {
    const c = compile(a, { tokenizer: 'estimate' })
    expect(c.sections[2]!.tokens).toBe(Math.ceil('Done.'.length / 4))
    expect(compile(a, { tokenizer: countingTokenizer() }).tokenizer).toBe('words')
  })

  it('counts special-token text as ordinary text', () => {
    const special = assembly([section('s', 'Never print <|endoftext|> or <|im_start|> literally.')])
    for (const tokenizer of ['o200k', 'cl100k', 'estimate'] as const) {
      const c = compile(special, { tokenizer, exactTokens: true })
      expect(c.tokens).toBeGreaterThan(5)
      expect(c.exactTokens).toBeGreaterThan(5)
    }
  })

  it('re-counts only the section that changed', () => {
    const tokenizer = countingTokenizer()
    const sections = [
      section('a', 'alpha section'),
      section('b', 'beta {{v}}'),
      section('c', 'gamma section'),
    ]
    compile(assembly(sections, { variables: { v: 'one' } }), { tokenizer })
    expect(tokenizer.seen).toEqual(['alpha section', 'beta one', 'gamma section', '\n\n'])
    tokenizer.seen.length = 0
    compile(assembly(sections, { variables: { v: 'one' } }), { tokenizer })
    expect(tokenizer.seen).toEqual([])
    compile(assembly(sections, { variables: { v: 'two' } }), { tokenizer })
    expect(tokenizer.seen).toEqual(['beta two'])
  })

  it('describes an unchanged recompile with the same result', () => {
    const first = compile(a)
    const second = compile(structuredClone(a))
    expect(second).toEqual(first)
  })
})

describe('compile: tools', () => {
  const search: ToolSchema = {
    name: 'search',
    description: 'Search the web',
    parameters: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
  }
  const read: ToolSchema = {
    name: 'read',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  }

  it('hashes each tool by its canonical JSON and keeps the assembly order', () => {
    const c = compile(assembly([], { tools: [search, read] }))
    expect(c.tools.map((t) => t.name)).toEqual(['search', 'read'])
    expect(c.tools[0]!.schema).toEqual(search)
    expect(c.tools[0]!.hash).toBe(`sha256:${sha256(canonicalJson(search))}`)
    const list = c.tools.map(({ name, hash }) => ({ name, hash }))
    expect(c.toolsHash).toBe(`sha256:${sha256(canonicalJson(list))}`)
  })

  it('ignores key order and notices any change, even in the same object', () => {
    const reordered: ToolSchema = {
      parameters: { properties: { q: { type: 'string' } }, type: 'object', required: ['q'] },
      description: 'Search the web',
      name: 'search',
    }
    const hash = compile(assembly([], { tools: [search] })).tools[0]!.hash
    expect(compile(assembly([], { tools: [reordered] })).tools[0]!.hash).toBe(hash)
    const mutable = structuredClone(search)
    const a = assembly([], { tools: [mutable] })
    expect(compile(a).tools[0]!.hash).toBe(hash)
    ;(mutable.parameters.properties as Record<string, unknown>).limit = { type: 'number' }
    expect(compile(a).tools[0]!.hash).not.toBe(hash)
  })

  it('changes the tools hash when the order changes', () => {
    const ab = compile(assembly([], { tools: [search, read] })).toolsHash
    const ba = compile(assembly([], { tools: [read, search] })).toolsHash
    expect(ab).not.toBe(ba)
  })
})

describe('compile: turn values in the system prompt', () => {
  const a = assembly(
    [
      section('identity', 'You are helpful.'),
      section('env', 'Today is [system:date] on [git:branch] in [prompt:cwd].', { dialect: 'bracket' }),
    ],
    {
      variables: { 'system:date': '2031-02-03', 'git:branch': 'main', 'prompt:cwd': '/p' },
      stability: { 'system:date': 'turn', 'git:branch': 'turn', 'prompt:cwd': 'session' },
    },
  )

  it('warns naming the section and the variables, pointing at the environment message', () => {
    const c = compile(a)
    expect(c.sections.map((s) => s.stability)).toEqual(['static', 'turn'])
    expect(c.warnings).toHaveLength(1)
    const [warning] = c.warnings
    expect(warning).toMatchObject({ code: 'turn-in-system-prompt', section: 'env' })
    expect(warning!.message).toContain('"system:date", "git:branch"')
    expect(warning!.message).not.toContain('prompt:cwd')
    expect(warning!.message).toMatch(/environment-context/)
  })

  it('refuses with volatile: error', () => {
    let error: unknown
    try {
      compile(a, { volatile: 'error' })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(CompileError)
    expect(error).toMatchObject({ code: 'turn-in-system-prompt', section: 'env', name: 'CompileError' })
    expect((error as Error).message).toContain('system:date')
  })

  it('counts a turn key tested by a condition, and a section declared turn', () => {
    const c = compile(
      assembly(
        [
          section('cond', '{{#if branch}}On a branch.{{/if}}'),
          section('declared', 'Fresh.', { stability: 'turn' }),
        ],
        { variables: { branch: 'main' }, stability: { branch: 'turn' } },
      ),
    )
    expect(c.warnings.map((w) => w.section)).toEqual(['cond', 'declared'])
    expect(c.warnings[1]!.message).toContain('declares stability "turn"')
  })

  it('takes session for a variable without a stability entry and ignores unknown keys', () => {
    const c = compile(
      assembly(
        [section('a', '{{who}} [nothing:here]'), section('b', 'Plain [other:key]', { dialect: 'bracket' })],
        { variables: { who: 'Ada' } },
      ),
    )
    expect(c.sections.map((s) => s.stability)).toEqual(['session', 'static'])
    expect(c.warnings).toEqual([])
  })

  it('says nothing about a turn section that renders empty, since it is not in the prompt', () => {
    const c = compile(
      assembly([section('gone', '{{#if branch}}{{branch}}{{/if}}')], {
        variables: { branch: undefined },
        stability: { branch: 'turn' },
      }),
      { volatile: 'error' },
    )
    expect(c.text).toBe('')
  })
})

describe('compile: stable prefixes', () => {
  const a = assembly(
    [
      section('identity', 'Identity.'),
      section('rules', 'Rules.'),
      section('project', 'Project {{cwd}}.'),
      section('late static', 'More static.'),
      section('env', 'Branch {{branch}}.'),
      section('tail', 'Tail.'),
    ],
    { variables: { cwd: '/p', branch: 'main' }, stability: { branch: 'turn' } },
  )

  it('spans the leading static sections, then the leading static and session ones', () => {
    const c = compile(a)
    const [identity, rules, , lateStatic] = c.sections
    const sep = o200k.count('\n\n')
    expect(c.stablePrefix.static).toEqual({ end: rules!.end, tokens: identity!.tokens + sep + rules!.tokens })
    const sessionTokens = c.sections.slice(0, 4).reduce((n, s) => n + s.tokens, 0) + 3 * sep
    expect(c.stablePrefix.session).toEqual({ end: lateStatic!.end, tokens: sessionTokens })
  })

  it('is empty when the first section is volatile', () => {
    const c = compile(
      assembly([section('env', 'Now {{t}}.')], { variables: { t: '1' }, stability: { t: 'turn' } }),
    )
    expect(c.stablePrefix).toEqual({ static: { end: 0, tokens: 0 }, session: { end: 0, tokens: 0 } })
  })
})

describe('compile: recompiling from memos', () => {
  const a = assembly(
    [section('one', 'First section for {{user}}.'), section('two', 'Second section.\nWith two lines.')],
    { variables: { user: 'Ada' } },
  )

  it('returns a fresh result each time: changing one leaves the next alone', () => {
    const first = compile(a)
    const expected = structuredClone(first)
    first.sections[0]!.tokens = -1
    first.sections.pop()
    first.tools.push({ name: 'x', hash: 'h', schema: { name: 'x', parameters: {} } })
    first.stablePrefix.static.end = -1
    first.warnings.push({ code: 'x', message: 'x' })
    expect(compile(a)).toEqual(expected)
  })

  it('keeps the counts and hashes of each tokenizer and hash function apart when they alternate', () => {
    const words = countingTokenizer()
    const fast = (text: string) => sha256(text)
    const plain = compile(a)
    const counted = compile(a, { tokenizer: words, hash: fast })
    expect(compile(a)).toEqual(plain)
    expect(compile(a, { tokenizer: words, hash: fast })).toEqual(counted)
    expect(counted.sections.map((s) => s.tokens)).toEqual([5, 6])
    expect(counted.hash).toBe(plain.hash)
    expect(compile(a, { tokenizer: 'cl100k' }).tokens).toBe(
      cl100k.count('First section for Ada.') +
        cl100k.count('\n\n') +
        cl100k.count('Second section.\nWith two lines.'),
    )
  })

  it('describes a cut prompt the same way when it is compiled again', () => {
    const cut = assembly([
      section('keep', 'Always here.'),
      section('long', 'one line of the long section\n'.repeat(10).trimEnd(), { priority: 1 }),
    ])
    const first = compile(cut, { tokenizer: 'estimate', budget: { maxTokens: 40 } })
    expect(first.cuts).toEqual([{ section: 'long', removedChars: expect.any(Number), dropped: false }])
    expect(compile(structuredClone(cut), { tokenizer: 'estimate', budget: { maxTokens: 40 } })).toEqual(first)
    expect(first.hash).toBe(`sha256:${sha256(first.text)}`)
  })
})
