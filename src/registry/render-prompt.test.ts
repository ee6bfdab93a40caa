import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderPrompt, renderSections } from './render-prompt.js'
import type { AssembledSection, PromptAssembly } from './types.js'

const section = (name: string, text: string, extra: Partial<AssembledSection> = {}): AssembledSection => ({
  name,
  order: 0,
  text,
  dialect: 'mustache',
  stability: 'static',
  ...extra,
})
const assembly = (
  sections: AssembledSection[],
  variables: Record<string, string | undefined> = {},
): PromptAssembly => ({
  sections,
  tools: [],
  variables,
  stability: {},
})

describe('renderPrompt', () => {
  it('normalises CRLF, strips leading blank lines and trailing whitespace, keeps first-line indentation', () => {
    const text = renderPrompt(
      assembly([section('a', '\r\n  \n    indented\r\nnext  \r\n\r\n'), section('b', 'B \t')]),
    )
    expect(text).toBe('    indented\nnext\n\nB')
  })

  it('drops sections left empty after interpolation and joins the rest with one blank line', () => {
    const a = assembly([section('a', 'A'), section('gone', '{{#if x}}X{{/if}}\n  \n'), section('c', 'C')], {
      x: undefined,
    })
    expect(renderPrompt(a)).toBe('A\n\nC')
    expect(renderSections(a).map((r) => r.section.name)).toEqual(['a', 'c'])
  })

  it('renders each section in its dialect’s default mode', () => {
    const a = assembly(
      [section('b', '[if git:branch]on [git:branch][endif][unknown:key] - [x] done', { dialect: 'bracket' })],
      {
        'git:branch': 'main',
      },
    )
    expect(renderPrompt(a)).toBe('on main - [x] done')
  })

  it('normalises CRLF that arrives through a value too', () => {
    expect(renderPrompt(assembly([section('a', 'x {{v}}')], { v: 'one\r\ntwo' }))).toBe('x one\ntwo')
  })

  it('property: the output never holds CRLF, never ends with whitespace, never starts with a blank line', () => {
    const piece = fc.constantFrom('a', ' ', '\t', '\n', '\r\n', 'b c', '{{v}}', '{{#if v}}y{{/if}}')
    fc.assert(
      fc.property(
        fc.array(
          fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
          { maxLength: 6 },
        ),
        fc.string(),
        (texts, v) => {
          const a = assembly(
            texts.map((t, i) => section(`s${i}`, t)),
            { v },
          )
          const sections = renderSections(a)
          const out = renderPrompt(a)
          expect(out.includes('\r\n')).toBe(false)
          expect(out).toBe(out.trimEnd())
          expect(/^[ \t]*\n/.test(out)).toBe(false)
          expect(out).toBe(sections.map((s) => s.text).join('\n\n'))
          for (const s of sections) expect(s.text.length).toBeGreaterThan(0)
        },
      ),
    )
  })
})

describe('insertions after normalisation', () => {
  it('follow CRLF → LF, the leading blank lines removed and the trailing whitespace trimmed', () => {
    const value = 'one\r\ntwo\r\n'
    const [r] = renderSections({
      sections: [
        {
          name: 's',
          order: 1,
          text: '\n  \r\nHead\r\n[file:a]tail [file:a]',
          dialect: 'bracket',
          stability: 'static',
        },
      ],
      tools: [],
      variables: { 'file:a': value },
      stability: {},
    })
    expect(r?.text).toBe('Head\none\ntwo\ntail one\ntwo')
    const [first, second] = r?.insertions ?? []
    expect(r?.text.slice(first!.start, first!.end)).toBe('one\ntwo\n')
    expect(r?.text.slice(second!.start, second!.end)).toBe('one\ntwo')
  })
})
