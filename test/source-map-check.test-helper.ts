import { readFile } from 'node:fs/promises'
import { LineCounter } from '../src/shared/line-counter.js'
import type { SourceSpan } from '../src/shared/source-map.js'

/** The offset of `line`:`column` in `text`, lines ending as `LineCounter` ends them. */
function offsetOf(text: string, line: number, column: number): number {
  const breaks = [...text.matchAll(/\r\n|\n|\r/g)]
  if (line - 1 > breaks.length) return -1
  const start = line === 1 ? 0 : breaks[line - 2]!.index + breaks[line - 2]![0].length
  return start + column - 1
}

/**
 * What is wrong with a part's source map, in sentences (empty when
 * nothing): a span whose stretch of `text` is not its file's text from its
 * line and column on (files read from disk, a leading BOM removed, as
 * discovery reads them), spans out of order, and a line of a file in
 * `files` that stands whole in `text` yet no span of that file covers it.
 */
export async function sourceMapProblems(
  part: { text: string; sourceMap: readonly SourceSpan[]; files: readonly string[] },
  files: readonly string[] = part.files,
): Promise<string[]> {
  const problems: string[] = []
  const texts = new Map<string, string>()
  const read = async (path: string): Promise<string> => {
    let text = texts.get(path)
    if (text === undefined) {
      text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '')
      texts.set(path, text)
    }
    return text
  }
  let last = 0
  const covered = new Map<string, Set<number>>()
  for (const span of part.sourceMap) {
    if (span.start < last || span.end <= span.start)
      problems.push(`span ${span.start}-${span.end} out of order`)
    last = span.end
    const source = await read(span.path)
    const at = offsetOf(source, span.line, span.column)
    const stretch = part.text.slice(span.start, span.end)
    if (source.slice(at, at + stretch.length) !== stretch)
      problems.push(`${span.path}:${span.line}:${span.column} is not ${JSON.stringify(stretch.slice(0, 40))}`)
    const lines = covered.get(span.path) ?? new Set<number>()
    covered.set(span.path, lines)
    const counter = new LineCounter(source)
    const first = counter.at(at).line
    const end = counter.at(at + stretch.length).line
    for (let l = first; l <= end; l++) lines.add(l)
  }
  for (const path of files) {
    const source = await read(path)
    source.split(/\r\n|\n|\r/).forEach((line, i) => {
      if (line.trim().length < 8 || !part.text.includes(line)) return
      if (!covered.get(path)?.has(i + 1))
        problems.push(`${path}:${i + 1} is in the text but no span names it`)
    })
  }
  return problems
}
