import { describe, expect, it } from 'vitest'
import { hashText } from '../shared/hash.js'
import { fileChanges, type LockFile, lineRange, sectionFiles } from './lock-files.js'
import { groupDigits } from './numbers.js'
import type { CompiledPrompt, CompiledSection } from './types.js'

// A lock records, per section, each included file's hash and lines and the
// hash of the section's own text; `sysprompt check` then blames a change on
// the file it came from, in words a user acts on.

/** A prompt whose one section spans `text`, including `files` (path and the offsets they occupy). */
function promptWith(
  text: string,
  files: { path: string; start: number; end: number }[],
  section = { start: 0, end: text.length },
): { compiled: CompiledPrompt; section: CompiledSection } {
  const s = { name: 's', ...section, files } as unknown as CompiledSection
  return { compiled: { text, sections: [s] } as unknown as CompiledPrompt, section: s }
}

describe('sectionFiles', () => {
  it('is undefined for a section that includes no file', () => {
    const { compiled, section } = promptWith('abc', [])
    expect(sectionFiles(compiled, section)).toBeUndefined()
    const none = { ...section, files: undefined } as CompiledSection
    expect(sectionFiles(compiled, none)).toBeUndefined()
  })

  it("hashes each file's text and the section's own text with the files taken out", () => {
    //           0123456789012345678
    const text = 'head\nAAA\nmid\nBB\ntail'
    const { compiled, section } = promptWith(text, [
      { path: 'a.md', start: 5, end: 9 },
      { path: 'b.md', start: 13, end: 16 },
    ])
    expect(sectionFiles(compiled, section)).toEqual({
      files: [
        { path: 'a.md', hash: hashText('AAA\n'), lines: [2, 2] },
        { path: 'b.md', hash: hashText('BB\n'), lines: [4, 4] },
      ],
      textHash: hashText('head\n\u0000mid\n\u0000tail'),
    })
  })

  it('takes a nested file (an import inside an instruction file) out of its parent, and only the outer one out of the section', () => {
    //           0         1         2
    //           0123456789012345678901234
    const text = 'x\nouter\ninner\nrest\ny'
    const { compiled, section } = promptWith(text, [
      { path: 'inner.md', start: 8, end: 14 },
      { path: 'outer.md', start: 2, end: 19 },
    ])
    const result = sectionFiles(compiled, section)!
    expect(result.files).toEqual([
      { path: 'inner.md', hash: hashText('inner\n'), lines: [3, 3] },
      { path: 'outer.md', hash: hashText('outer\n\u0000rest\n'), lines: [2, 4] },
    ])
    expect(result.textHash).toBe(hashText('x\n\u0000y'))
  })

  it('takes out of its parent an import that starts or ends exactly where the parent does', () => {
    //           0         1
    //           0123456789012345678
    const text = 'head\ntail\nnext\n'
    const { compiled, section } = promptWith(text, [
      { path: 'he.md', start: 0, end: 2 },
      { path: 'head.md', start: 0, end: 5 },
      { path: 'parent.md', start: 0, end: 10 },
      { path: 'tail.md', start: 5, end: 10 },
    ])
    const result = sectionFiles(compiled, section)!
    // head.md, which holds he.md, is one hole in its parent, whatever order the spans come in.
    expect(result.files.map((f) => [f.path, f.hash])).toEqual([
      ['he.md', hashText('he')],
      ['head.md', hashText('\u0000ad\n')],
      ['parent.md', hashText('\u0000\u0000')],
      ['tail.md', hashText('tail\n')],
    ])
  })

  it('counts lines from the start of the prompt, a file ending in a newline ending on its last line', () => {
    const text = 'one\ntwo\nthree\nfour\n'
    const { compiled, section } = promptWith(
      text,
      [
        { path: 'f.md', start: 8, end: 19 },
        { path: 'empty.md', start: 4, end: 4 },
      ],
      { start: 4, end: text.length },
    )
    const result = sectionFiles(compiled, section)!
    expect(result.files).toEqual([
      { path: 'f.md', hash: hashText('three\nfour\n'), lines: [3, 4] },
      { path: 'empty.md', hash: hashText(''), lines: [2, 2] },
    ])
    expect(result.textHash).toBe(hashText('\u0000two\n\u0000'))
  })
})

describe('fileChanges', () => {
  const file = (path: string, hash: string, lines: [number, number]): LockFile => ({ path, hash, lines })

  it('says which file is new, changed (and where it was) or gone, in the current order then the removed', () => {
    const locked = [file('gone.md', 'g', [9, 9]), file('same.md', 's', [1, 2]), file('moved.md', 'm', [3, 5])]
    const current = [
      file('new.md', 'n', [1, 1]),
      file('same.md', 's', [2, 3]),
      file('moved.md', 'm2', [4, 6]),
      file('edited.md', 'e2', [7, 7]),
    ]
    const lockedEdited = [...locked, file('edited.md', 'e', [7, 7])]
    expect(fileChanges('docs', lockedEdited, current)).toEqual([
      {
        path: 'new.md',
        kind: 'added',
        lines: [1, 1],
        message: 'new.md is newly included in section "docs", at prompt line 1',
      },
      {
        path: 'moved.md',
        kind: 'changed',
        lines: [4, 6],
        message: 'moved.md changed, at prompt lines 4–6 (was lines 3–5) in section "docs"',
      },
      {
        path: 'edited.md',
        kind: 'changed',
        lines: [7, 7],
        message: 'edited.md changed, at prompt line 7 in section "docs"',
      },
      {
        path: 'gone.md',
        kind: 'removed',
        lines: [9, 9],
        message: 'gone.md is no longer included in section "docs" (it was at prompt line 9)',
      },
    ])
  })

  it('says where a changed file was when only its first or only its last line moved', () => {
    const changed = (was: [number, number], now: [number, number]) =>
      fileChanges('s', [file('a', 'x', was)], [file('a', 'y', now)])[0]!.message
    expect(changed([1, 3], [2, 3])).toBe('a changed, at prompt lines 2–3 (was lines 1–3) in section "s"')
    expect(changed([1, 3], [1, 4])).toBe('a changed, at prompt lines 1–4 (was lines 1–3) in section "s"')
    expect(changed([1, 3], [1, 3])).toBe('a changed, at prompt lines 1–3 in section "s"')
  })

  it('is empty when nothing differs', () => {
    const files = [file('a', 'x', [1, 1])]
    expect(fileChanges('s', files, files)).toEqual([])
    expect(fileChanges('s', [], [])).toEqual([])
  })
})

describe('number and line formats', () => {
  it('writes one line or a range', () => {
    expect(lineRange([4, 4])).toBe('line 4')
    expect(lineRange([4, 5])).toBe('lines 4–5')
  })

  it('groups digits by three with a space', () => {
    expect(groupDigits(0)).toBe('0')
    expect(groupDigits(999)).toBe('999')
    expect(groupDigits(1000)).toBe('1 000')
    expect(groupDigits(27206)).toBe('27 206')
    expect(groupDigits(1234567)).toBe('1 234 567')
    expect(groupDigits(-12345)).toBe('-12 345')
  })
})
