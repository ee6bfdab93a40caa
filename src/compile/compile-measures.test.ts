import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AssembledSection, PromptAssembly } from '../registry/types.js'
import { compile } from './compile.js'

// What a compiled prompt says about the text it holds, checked against an
// independent reading of that text: its UTF-8 bytes, sha256 digests and
// slices, for cut prompts too, and which optional keys are present. Each test
// compiles texts of its own (compile keeps the last layouts), so every figure
// here is computed by the test that checks it.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

function section(name: string, text: string, extra: Partial<AssembledSection> = {}): AssembledSection {
  return { name, order: 0, text, dialect: 'bracket', stability: 'static', ...extra }
}

function assembly(sections: AssembledSection[], variables: Record<string, string> = {}): PromptAssembly {
  return { sections, tools: [], variables, stability: {} }
}

/** Twelve lines of multi-byte text, so that bytes and string length differ. */
const lines = (tag: string) =>
  Array.from({ length: 12 }, (_, i) => `${tag} ligne ${i} — déjà vu ✓`).join('\n')

describe('compile: bytes, hashes and slices of what is sent', () => {
  it('counts the UTF-8 bytes of a multi-section prompt, separators included', () => {
    const c = compile(
      assembly([section('a', 'Première — ✓'), section('b', 'Deuxième 🤖'), section('c', 'x')]),
    )
    expect(c.text).toBe('Première — ✓\n\nDeuxième 🤖\n\nx')
    expect(c.bytes).toBe(Buffer.byteLength(c.text, 'utf8'))
    expect(c.bytes).toBe(36)
  })

  it.each([20, 30, 60])('describes a prompt cut to a budget of %i tokens by its cut text', (maxTokens) => {
    const c = compile(
      assembly([
        section('keep', `Fixé ${maxTokens}.`),
        section('cut', lines(`b${maxTokens}`), { priority: 1 }),
      ]),
      { tokenizer: 'estimate', budget: { maxTokens } },
    )
    expect(c.cuts).toHaveLength(1)
    expect(c.bytes).toBe(Buffer.byteLength(c.text, 'utf8'))
    expect(c.hash).toBe(`sha256:${sha256(c.text)}`)
    const cut = c.sections[1]!
    expect(c.text.slice(cut.start, cut.end)).toMatch(/characters omitted to fit the token budget …\]$/)
    for (const s of c.sections) expect(s.hash).toBe(`sha256:${sha256(c.text.slice(s.start, s.end))}`)
  })

  it("uses the caller's hash function for the prompt and every section, not sha256", () => {
    const salted = (text: string) => sha256(`salt:${text}`)
    const a = assembly([section('one', 'Hashed one way.'), section('two', 'Then another.')])
    const plain = compile(a)
    const custom = compile(a, { hash: salted })
    expect(plain.hash).toBe(`sha256:${sha256(plain.text)}`)
    expect(custom.text).toBe(plain.text)
    expect(custom.hash).toBe(`sha256:${salted(custom.text)}`)
    expect(custom.sections.map((s) => s.hash)).toEqual(
      custom.sections.map((s) => `sha256:${salted(custom.text.slice(s.start, s.end))}`),
    )
    expect(compile(a).hash).toBe(plain.hash)
  })
})

describe('compile: optional keys are absent, not undefined', () => {
  it('has exactTokens only when asked for', () => {
    const a = assembly([section('only', 'Counted twice when asked.')])
    expect(Object.hasOwn(compile(a), 'exactTokens')).toBe(false)
    expect(Object.hasOwn(compile(a, { exactTokens: true }), 'exactTokens')).toBe(true)
  })

  it('lists insertions without files for a section that includes no file', () => {
    const c = compile(
      assembly([section('plain', 'No values.'), section('cwd', 'Working in [prompt:cwd].')], {
        'prompt:cwd': '/dépôt',
      }),
    )
    const [plain, cwd] = c.sections
    expect(Object.keys(plain!)).toEqual(['name', 'order', 'stability', 'start', 'end', 'tokens', 'hash'])
    expect(cwd).toStrictEqual({
      name: 'cwd',
      order: 0,
      stability: 'session',
      start: plain!.end + 2,
      end: c.text.length,
      tokens: cwd!.tokens,
      hash: `sha256:${sha256('Working in /dépôt.')}`,
      insertions: [{ key: 'prompt:cwd', start: plain!.end + 2 + 11, end: plain!.end + 2 + 17 }],
    })
  })

  it('drops every insertion a cut replaced by its marker, even one that ends inside the marker', () => {
    // The budget keeps only the marker of `cut`; `file:x.md` sat at 5–10 of the
    // section, a range the marker covers too, but its text is gone.
    const c = compile(
      assembly(
        [
          section('keep', 'Fixé: [prompt:cwd].'),
          section('cut', `Tête\n[file:x.md]\n${lines('dropped')}`, { priority: 1 }),
        ],
        { 'prompt:cwd': '/dépôt', 'file:x.md': 'court' },
      ),
      { tokenizer: 'estimate', budget: { maxTokens: 20 } },
    )
    expect(c.cuts).toEqual([{ section: 'cut', removedChars: expect.any(Number), dropped: true }])
    const [keep, cut] = c.sections
    expect(keep!.insertions).toEqual([{ key: 'prompt:cwd', start: 6, end: 12 }])
    expect(Object.keys(cut!)).toEqual(['name', 'order', 'stability', 'start', 'end', 'tokens', 'hash'])
    expect(c.text).not.toContain('court')
  })

  it('keeps the insertions and files that lie wholly before the cut', () => {
    const c = compile(
      assembly(
        [section('keep', 'Fixé.'), section('cut', `Tête\n[file:y.md]\n${lines('kept')}`, { priority: 1 })],
        { 'file:y.md': 'court' },
      ),
      { tokenizer: 'estimate', budget: { maxTokens: 30 } },
    )
    const cut = c.sections[1]!
    expect(cut.insertions).toEqual([{ key: 'file:y.md', start: cut.start + 5, end: cut.start + 10 }])
    expect(cut.files).toEqual([{ path: 'y.md', key: 'file:y.md', start: cut.start + 5, end: cut.start + 10 }])
    expect(c.text.slice(cut.files![0]!.start, cut.files![0]!.end)).toBe('court')
  })
})
