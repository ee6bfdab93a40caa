/**
 * The inline code spans of a text, as CommonMark finds them: a run of N
 * backticks opens a span and the next run of exactly N backticks closes it;
 * a run with no such closer is plain text, and the search for spans goes on
 * right after it. Returned as `[start, end)` offsets (UTF-16, `end`
 * exclusive), each span including its backtick runs, in order.
 *
 * One pass over the text and one over its runs, so the time is linear in
 * the text's length whatever it holds. (The pattern `` /(`+)[\s\S]*?\1/g ``
 * this replaces backtracks: 20 KB of backticks took it seconds.) Where that
 * pattern found a span, the span is the same on ordinary Markdown; it
 * differs only where a run has no closer of its exact length, which that
 * pattern closed with a shorter run or with part of a longer one.
 */
export function codeSpans(text: string): [number, number][] {
  const starts: number[] = []
  const lengths: number[] = []
  let i = text.indexOf('`')
  while (i !== -1) {
    let j = i + 1
    while (j < text.length && text.charCodeAt(j) === 96) j++
    starts.push(i)
    lengths.push(j - i)
    i = text.indexOf('`', j)
  }
  // closer[k]: the next run after run k with the same length (-1 if none), found walking back once.
  const closer = new Array<number>(starts.length).fill(-1)
  const lastOfLength = new Map<number, number>()
  for (let k = starts.length - 1; k >= 0; k--) {
    closer[k] = lastOfLength.get(lengths[k]!) ?? -1
    lastOfLength.set(lengths[k]!, k)
  }
  const spans: [number, number][] = []
  let k = 0
  while (k < starts.length) {
    const close = closer[k]!
    if (close === -1) {
      k++
      continue
    }
    spans.push([starts[k]!, starts[close]! + lengths[close]!])
    k = close + 1
  }
  return spans
}

/** `text` with each code span replaced by as many spaces (offsets kept), so what lies inside cannot match. */
export function blankCodeSpans(text: string): string {
  const spans = codeSpans(text)
  if (spans.length === 0) return text
  let out = ''
  let last = 0
  for (const [start, end] of spans) {
    out += text.slice(last, start) + ' '.repeat(end - start)
    last = end
  }
  return out + text.slice(last)
}
