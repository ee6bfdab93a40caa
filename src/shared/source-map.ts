/**
 * Where each stretch of a built text came from (issue 32): harness views
 * frame, trim, strip and inline the files they carry, and a reader of a
 * recorded request (the drift check, `why`) needs the file and line behind
 * any offset of it. A `SourceSpan` says that `text.slice(start, end)` is the
 * file's own text from `line`:`column` on, unchanged; what no span covers
 * is the builder's own (framing, marks, headings). Offsets and columns
 * count UTF-16 code units, as string indices do; lines and columns start at
 * 1. Every operation here keeps that statement true of every span.
 */
export interface SourceSpan {
  start: number
  end: number
  /** The file, as the builder names it (absolute in discovery). */
  path: string
  line: number
  column: number
}

/** A text with the spans of it that came from files, in order, not overlapping. */
export interface MappedText {
  text: string
  map: SourceSpan[]
}

/** A file's text, all of it from the file (an empty text has no span). */
export function fromFile(path: string, text: string): MappedText {
  return { text, map: text.length === 0 ? [] : [{ start: 0, end: text.length, path, line: 1, column: 1 }] }
}

/** Text of the builder's own: no span. */
export function plain(text: string): MappedText {
  return { text, map: [] }
}

/** `spans` moved `by` code units (a text placed after `by` others). */
export function shiftSpans(spans: readonly SourceSpan[], by: number): SourceSpan[] {
  return by === 0 ? [...spans] : spans.map((s) => ({ ...s, start: s.start + by, end: s.end + by }))
}

/** The pieces one after another, `separator` (the builder's own) between them. */
export function joinMapped(pieces: readonly (MappedText | string)[], separator = ''): MappedText {
  let text = ''
  const map: SourceSpan[] = []
  pieces.forEach((piece, i) => {
    if (i > 0) text += separator
    const mapped = typeof piece === 'string' ? plain(piece) : piece
    for (const span of mapped.map)
      map.push({ ...span, start: span.start + text.length, end: span.end + text.length })
    text += mapped.text
  })
  return { text, map }
}

/** How far a span's position was advanced: `at` lies on `line`:`column` (a memo, so ordered cuts stay linear). */
interface Reached {
  at: number
  line: number
  column: number
}

/**
 * Where `at` (inside the span) lies in the span's file: its line and
 * column advanced over the text between the span's start and `at`, lines
 * ending as `LineCounter` ends them (`\r\n`, `\n`, a lone `\r`). With
 * `memo`, a later call for the same span goes on from where the last one
 * stopped.
 */
function advance(text: string, span: SourceSpan, at: number, memo?: Map<SourceSpan, Reached>): Reached {
  const known = memo?.get(span)
  let from =
    known !== undefined && known.at <= at ? known : { at: span.start, line: span.line, column: span.column }
  let { line, column } = from
  for (let i = from.at; i < at; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++
      column = 1
    } else column++
  }
  from = { at, line, column }
  memo?.set(span, from)
  return from
}

/** `mapped.text.slice(from, to)` with the parts of spans that lie inside it. */
export function sliceMapped(mapped: MappedText, from: number, to: number = mapped.text.length): MappedText {
  return {
    text: mapped.text.slice(clampTo(mapped, from), clampTo(mapped, Math.max(from, to))),
    map: cut(mapped, from, to),
  }
}

function clampTo(mapped: MappedText, n: number): number {
  return Math.max(0, Math.min(n, mapped.text.length))
}

function cut(mapped: MappedText, from: number, to: number, memo?: Map<SourceSpan, Reached>): SourceSpan[] {
  const start = clampTo(mapped, from)
  const end = Math.max(start, clampTo(mapped, to))
  const map: SourceSpan[] = []
  for (const span of mapped.map) {
    const a = Math.max(span.start, start)
    const b = Math.min(span.end, end)
    if (a >= b) continue
    const { line, column } = a === span.start ? span : advance(mapped.text, span, a, memo)
    map.push({ start: a - start, end: b - start, path: span.path, line, column })
  }
  return map
}

/** `mapped` without the given ranges (`[start, end)`, in order, not overlapping). */
export function removeRanges(mapped: MappedText, ranges: readonly (readonly [number, number])[]): MappedText {
  if (ranges.length === 0) return mapped
  // One memo for the whole pass: each span's position only moves forward, so the cuts cost the text once.
  const memo = new Map<SourceSpan, Reached>()
  const kept: MappedText[] = []
  let last = 0
  for (const [start, end] of [...ranges, [mapped.text.length, mapped.text.length] as const]) {
    kept.push({ text: mapped.text.slice(last, start), map: cut(mapped, last, start, memo) })
    last = end
  }
  return joinMapped(kept)
}

/** `mapped` trimmed at both ends as `String.prototype.trim` trims. */
export function trimMapped(mapped: MappedText): MappedText {
  const lead = mapped.text.length - mapped.text.trimStart().length
  return sliceMapped(mapped, lead, lead + mapped.text.trim().length)
}

/**
 * The map of `derived`, a text cut out of `mapped` (a prefix, a suffix, a
 * trimmed or front-matter-free body): the spans of where it lies in
 * `mapped.text`. None when it is not a piece of it.
 */
export function mapPiece(mapped: MappedText, derived: string): SourceSpan[] {
  const whole = mapped.text
  if (derived === whole) return [...mapped.map]
  const at = whole.endsWith(derived)
    ? whole.length - derived.length
    : whole.startsWith(derived)
      ? 0
      : whole.indexOf(derived)
  return at === -1 ? [] : sliceMapped(mapped, at, at + derived.length).map
}

/** The file, line and column behind `offset` of the text `map` belongs to; `undefined` for the builder's own text. */
export function sourceAt(
  text: string,
  map: readonly SourceSpan[],
  offset: number,
): { path: string; line: number; column: number } | undefined {
  const span = map.find((s) => s.start <= offset && offset < s.end)
  if (span === undefined) return undefined
  const { line, column } = advance(text, span, offset)
  return { path: span.path, line, column }
}
