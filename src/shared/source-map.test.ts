import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  fromFile,
  joinMapped,
  type MappedText,
  mapPiece,
  removeRanges,
  sliceMapped,
  sourceAt,
  trimMapped,
} from './source-map.js'

/** The offset of `line`:`column` in `text` (both from 1). */
function offsetOf(text: string, line: number, column: number): number {
  const breaks = [...text.matchAll(/\r\n|\n|\r/g)]
  if (line - 1 > breaks.length) return -1
  const lineStart = line === 1 ? 0 : breaks[line - 2]!.index + breaks[line - 2]![0].length
  return lineStart + column - 1
}

/** Every span says the truth: its stretch of the text is its file's text from its line and column on. */
function spansHold(mapped: MappedText, files: Record<string, string>): boolean {
  let last = 0
  for (const span of mapped.map) {
    if (span.start < last || span.end <= span.start || span.end > mapped.text.length) return false
    last = span.end
    const source = files[span.path]!
    const at = offsetOf(source, span.line, span.column)
    if (at < 0 || source.slice(at, at + span.end - span.start) !== mapped.text.slice(span.start, span.end))
      return false
  }
  return true
}

const FILES = { 'a.md': '# A\n\nUse pnpm.\n<!-- note -->\nRun tests.\n', 'b.md': '  b one\nb two  \n' }

describe('source maps', () => {
  it('frames two files and still names the file and line of each of their lines', () => {
    const built = joinMapped(
      [
        '<x>\n',
        fromFile('a.md', FILES['a.md']),
        '\n---\n',
        trimMapped(fromFile('b.md', FILES['b.md'])),
        '\n</x>',
      ],
      '',
    )
    expect(spansHold(built, FILES)).toBe(true)
    expect(sourceAt(built.text, built.map, built.text.indexOf('Use pnpm.'))).toEqual({
      path: 'a.md',
      line: 3,
      column: 1,
    })
    expect(sourceAt(built.text, built.map, built.text.indexOf('two'))).toEqual({
      path: 'b.md',
      line: 2,
      column: 3,
    })
    // The framing is the builder's own.
    expect(sourceAt(built.text, built.map, built.text.indexOf('---'))).toBeUndefined()
    expect(sourceAt(built.text, built.map, 0)).toBeUndefined()
  })

  it('a removed comment line leaves the lines after it at their own line numbers', () => {
    const a = fromFile('a.md', FILES['a.md'])
    const start = a.text.indexOf('<!--')
    const end = a.text.indexOf('Run')
    const stripped = removeRanges(a, [[start, end]])
    expect(stripped.text).toBe('# A\n\nUse pnpm.\nRun tests.\n')
    expect(spansHold(stripped, FILES)).toBe(true)
    expect(sourceAt(stripped.text, stripped.map, stripped.text.indexOf('Run'))).toEqual({
      path: 'a.md',
      line: 5,
      column: 1,
    })
  })

  it('maps a body cut out of its file (front matter gone, trimmed) to where it lies', () => {
    const text = '---\nglobs: "*.ts"\n---\n\nThe body.\n'
    const file = fromFile('r.mdc', text)
    const map = mapPiece(file, 'The body.')
    expect(map).toEqual([{ start: 0, end: 9, path: 'r.mdc', line: 5, column: 1 }])
    expect(mapPiece(file, 'not in it')).toEqual([])
  })

  it('any slice, removal, trim and join of mapped files keeps every span true', () => {
    const texts = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '\r', 'é', '😀'), maxLength: 40 })
    fc.assert(
      fc.property(
        texts,
        texts,
        fc.array(fc.tuple(fc.nat(60), fc.nat(60)), { maxLength: 4 }),
        fc.string({ maxLength: 5 }),
        (x, y, cuts, sep) => {
          const files = { x, y }
          let built = joinMapped([fromFile('x', x), trimMapped(fromFile('y', y)), fromFile('x', x)], sep)
          for (const [p, q] of cuts) {
            const [from, to] = p <= q ? [p, q] : [q, p]
            built = joinMapped([sliceMapped(built, 0, from), '#', sliceMapped(built, to)])
            if (!spansHold(built, files)) return false
          }
          const ranges: [number, number][] = []
          for (let i = 0; i + 2 <= built.text.length; i += 5) ranges.push([i, i + 2])
          return spansHold(removeRanges(built, ranges), files) && spansHold(trimMapped(built), files)
        },
      ),
    )
  })
})
