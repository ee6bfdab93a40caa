import { describe, expect, it } from 'vitest'
import type { AssembledSection, PromptAssembly } from '../registry/types.js'
import { compile } from './compile.js'

const section = (name: string, text: string, extra: Partial<AssembledSection> = {}): AssembledSection => ({
  name,
  order: 0,
  text,
  dialect: 'bracket',
  stability: 'static',
  ...extra,
})

const assembly = (sections: AssembledSection[], variables: Record<string, string>): PromptAssembly => ({
  sections,
  tools: [],
  variables,
  stability: {},
})

describe('provenance spans', () => {
  it('each section lists where its inserted values and included files landed in the prompt', () => {
    const compiled = compile(
      assembly(
        [section('intro', 'Hello.'), section('docs', 'Read this:\n[file:docs/A.md]\nand [prompt:cwd]')],
        { 'file:docs/A.md': 'Line one.\nLine two.', 'prompt:cwd': '.' },
      ),
      { tokenizer: 'estimate' },
    )
    const [intro, docs] = compiled.sections
    expect(intro).not.toHaveProperty('insertions')
    expect(docs?.files).toEqual([{ path: 'docs/A.md', key: 'file:docs/A.md', start: 19, end: 38 }])
    const file = docs!.files![0]!
    expect(compiled.text.slice(file.start, file.end)).toBe('Line one.\nLine two.')
    expect(docs?.insertions?.map((i) => [i.key, compiled.text.slice(i.start, i.end)])).toEqual([
      ['file:docs/A.md', 'Line one.\nLine two.'],
      ['prompt:cwd', '.'],
    ])
  })

  it('a budget cut keeps only the insertions it left whole', () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i} of the file`).join('\n')
    const compiled = compile(
      assembly(
        [section('keep', 'Fixed.'), section('cut', 'Head [file:a.md]\nmiddle\n[file:b.md]', { priority: 1 })],
        {
          'file:a.md': 'short',
          'file:b.md': long,
        },
      ),
      { tokenizer: 'estimate', budget: { maxTokens: 60 } },
    )
    expect(compiled.cuts).toHaveLength(1)
    const cut = compiled.sections[1]!
    expect(cut.files?.map((f) => f.path)).toEqual(['a.md'])
    for (const f of cut.files ?? []) expect(compiled.text.slice(f.start, f.end)).toBe('short')
  })
})
