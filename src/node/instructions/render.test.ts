import { describe, expect, it } from 'vitest'
import type { InstructionFile } from './discovery-results.js'
import { importFates, markCutImports, shiftSpans, trimInlined } from './import-spans.js'
import { header, renderBlocks } from './render.js'

// The discovery text and the spans that say which file each part came
// from, and the bookkeeping of where inlined imports sit after a trim or a cut.

const file = (path: string, imports?: InstructionFile[]): InstructionFile => ({
  path,
  bytes: 1,
  hash: 'sha256:x',
  truncated: false,
  ...(imports === undefined ? {} : { imports }),
})

describe('renderBlocks', () => {
  it('puts a header above each body, one blank line between blocks, every body ending with a line break', () => {
    const { text, spans } = renderBlocks([
      { shown: 'AGENTS.md', body: 'root\n', path: '/r/AGENTS.md' },
      { shown: 'docs/AGENTS.md', note: 'imported by AGENTS.md', body: 'docs', path: '/r/docs/AGENTS.md' },
      { shown: 'empty.md', body: '', path: '/r/empty.md' },
    ])
    expect(text).toBe(
      '<!-- AGENTS.md -->\nroot\n\n<!-- docs/AGENTS.md (imported by AGENTS.md) -->\ndocs\n\n<!-- empty.md -->\n',
    )
    expect(spans).toEqual([
      { path: '/r/AGENTS.md', shown: 'AGENTS.md', headerStart: 0, start: 19, end: 23 },
      { path: '/r/docs/AGENTS.md', shown: 'docs/AGENTS.md', headerStart: 25, start: 73, end: 77 },
      { path: '/r/empty.md', shown: 'empty.md', headerStart: 79, start: 97, end: 97 },
    ])
    for (const span of spans) expect(text.slice(span.headerStart, span.start)).toMatch(/^<!-- .* -->\n$/)
    expect(text.slice(spans[0]!.start, spans[0]!.end)).toBe('root')
    expect(renderBlocks([])).toEqual({ text: '', spans: [], map: [] })
  })

  it('places imports inside their block, clamped to what was kept, dropping those left empty', () => {
    const { text, spans } = renderBlocks([
      {
        shown: 'AGENTS.md',
        body: 'ab\ncd\n',
        path: '/r/AGENTS.md',
        imports: [
          { path: '/r/a.md', start: 0, end: 2 },
          { path: '/r/c.md', start: 3, end: 9 },
          { path: '/r/gone.md', start: 7, end: 9 },
        ],
      },
      { shown: 'x.md', body: 'x\n', path: '/r/x.md', imports: [] },
    ])
    const [top, second] = spans
    expect(top!.imports).toEqual([
      { path: '/r/a.md', start: 19, end: 21 },
      { path: '/r/c.md', start: 22, end: 24 },
    ])
    expect(text.slice(top!.imports![0]!.start, top!.imports![0]!.end)).toBe('ab')
    expect(text.slice(top!.imports![1]!.start, top!.imports![1]!.end)).toBe('cd')
    expect(second).not.toHaveProperty('imports')
  })

  it('writes a header as an HTML comment, with the note in parentheses', () => {
    expect(header('~/.codex/AGENTS.md')).toBe('<!-- ~/.codex/AGENTS.md -->')
    expect(header('notes.md', 'imported by CLAUDE.md')).toBe('<!-- notes.md (imported by CLAUDE.md) -->')
  })
})

describe('import spans', () => {
  const a = file('/r/a.md')
  const b = file('/r/b.md')
  const c = file('/r/c.md')

  it('moves spans along, keeping their files', () => {
    expect(shiftSpans([{ file: a, start: 1, end: 3 }], 4)).toEqual([{ file: a, start: 5, end: 7 }])
    expect(shiftSpans([{ file: a, start: 1, end: 3 }], 4)[0]!.file).toBe(a)
  })

  it('trims the text at both ends and clamps the spans into what is left', () => {
    const trimmed = trimInlined({
      text: '  \nlead a b\n\n',
      imports: [a],
      spans: [
        { file: a, start: 0, end: 5 },
        { file: b, start: 8, end: 13 },
        { file: c, start: 12, end: 13 },
      ],
    })
    expect(trimmed.text).toBe('lead a b')
    expect(trimmed.imports).toEqual([a])
    expect(trimmed.spans).toEqual([
      { file: a, start: 0, end: 2 },
      { file: b, start: 5, end: 8 },
      { file: c, start: 8, end: 8 },
    ])
  })

  it('tells whole, cut and gone imports apart at the cut, and all cut for a synopsis', () => {
    const spans = [
      { file: a, start: 0, end: 4 },
      { file: b, start: 3, end: 8 },
      { file: c, start: 4, end: 6 },
    ]
    expect([...importFates(spans, 4)]).toEqual([
      [a, 'whole'],
      [b, 'cut'],
      [c, 'gone'],
    ])
    expect([...importFates(spans, 3)].map(([, fate]) => fate)).toEqual(['cut', 'gone', 'gone'])
    expect([...importFates(spans, undefined)].map(([, fate]) => fate)).toEqual(['cut', 'cut', 'cut'])
  })

  it('marks every import not whole as truncated, at any depth, in a copy', () => {
    const inner = file('/r/inner.md')
    const outer = file('/r/outer.md', [inner])
    const kept = file('/r/kept.md')
    const top = file('/r/AGENTS.md', [outer, kept])
    const fates = new Map([
      [outer, 'whole' as const],
      [inner, 'gone' as const],
      [kept, 'whole' as const],
    ])
    const marked = markCutImports(top, fates)
    expect(marked.imports!.map((f) => f.truncated)).toEqual([false, false])
    expect(marked.imports![0]!.imports![0]!.truncated).toBe(true)
    expect(inner.truncated).toBe(false)
    expect(marked).not.toBe(top)
    expect(markCutImports(kept, fates)).toEqual(kept)
    expect(markCutImports(kept, fates)).not.toBe(kept)
    expect(markCutImports(file('/r/t.md', [a]), new Map([[a, 'cut' as const]])).imports![0]!.truncated).toBe(
      true,
    )
    // An import no cut reached (no fate) keeps its own flag.
    expect(markCutImports(file('/r/t.md', [a]), new Map()).imports![0]!.truncated).toBe(false)
  })
})
