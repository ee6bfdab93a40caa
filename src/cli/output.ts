import type { Io } from './io.js'
import { colourCode, jsonText, visible } from './sanitize.js'

export type { Io, OutStream } from './io.js'

/** Whether to colour stdout: only on a terminal, never with `NO_COLOR` set (to anything non-empty) or `--no-color`. */
export function useColor(io: Io, flag: boolean | undefined): boolean {
  if (flag === false) return false
  const noColor = io.env.NO_COLOR
  if (noColor !== undefined && noColor !== '') return false
  return io.stdout.isTTY === true
}

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
} as const

/** A colour or weight; `plain` leaves the text alone. */
export type Tone = keyof typeof CODES | 'plain'

/** Colours a text, or returns it unchanged when colours are off. */
export type Paint = (tone: Tone, text: string) => string

/**
 * The painter for one run: ANSI SGR codes when `color`, the identity
 * otherwise. The codes are written as marks that only the output stream
 * turns into real codes (`colourCode`), after it made every escape in the
 * text visible: so ours work and a repository's do not.
 */
export function painter(color: boolean): Paint {
  return (tone, text) => {
    if (!color || tone === 'plain' || text.length === 0) return text
    const [on, off] = CODES[tone]
    return `${colourCode(on)}${text}${colourCode(off)}`
  }
}

/**
 * One table cell: its text and how to colour it (colour is applied after
 * padding, so columns stay aligned). `lines` makes a cell of several lines,
 * one item each (a list of paths): the row takes as many lines as its
 * tallest cell, and `text` is then ignored.
 */
export interface Cell {
  text: string
  tone?: Tone
  lines?: readonly string[]
}

/** How a column aligns: numbers right, words left. */
export type Align = 'left' | 'right'

/** Characters a terminal shows for `text` (code points; wide characters count as one). */
export function width(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

/** A list cell: one item a line (a path is never cut; a long list stays readable). */
export function list(items: readonly string[], tone?: Tone): Cell {
  return {
    text: items.join(', '),
    lines: items.length === 0 ? ['—'] : items,
    ...(tone === undefined ? {} : { tone }),
  }
}

/**
 * An aligned table: each column as wide as its widest cell line, two spaces
 * between columns, no trailing spaces, nothing cut. Rows are lists of cells;
 * a string is a plain cell, a cell with `lines` spans several lines. With
 * `maxWidth`, a row's last cell (the free text: a reason, a bar) wraps at
 * word boundaries onto lines of its own column so no line is wider, unless a
 * single word (a path) is wider than the room left: it stays whole.
 */
export function table(
  rows: readonly (readonly (Cell | string)[])[],
  align: readonly Align[],
  paint: Paint,
  maxWidth?: number,
): string[] {
  // Cells hold repository text: made visible first, so columns are measured as they print.
  const cells = rows.map((row) =>
    row.map((c): { lines: string[]; tone: Tone } =>
      typeof c === 'string'
        ? { lines: [visible(c)], tone: 'plain' }
        : { lines: (c.lines ?? [c.text]).map((l) => visible(l)), tone: c.tone ?? 'plain' },
    ),
  )
  const widths: number[] = []
  const measure = (row: readonly { lines: string[] }[], upTo: number) =>
    row.forEach((cell, i) => {
      if (i < upTo) widths[i] = Math.max(widths[i] ?? 0, ...cell.lines.map(width))
    })
  for (const row of cells) measure(row, row.length - (maxWidth === undefined ? 0 : 1))
  const lead = (n: number) => widths.slice(0, n).reduce((a, w) => a + w + 2, 0)
  const out: string[] = []
  for (const row of cells) {
    const last = row.length - 1
    const room = maxWidth === undefined ? Number.POSITIVE_INFINITY : Math.max(10, maxWidth - lead(last))
    const columns = row.map((cell, i) => (i === last ? cell.lines.flatMap((l) => wrap(l, room)) : cell.lines))
    const height = Math.max(...columns.map((c) => c.length))
    for (let k = 0; k < height; k++) {
      const line = row.map((cell, i) => {
        const text = columns[i]![k] ?? ''
        const w = i === last && maxWidth !== undefined ? width(text) : (widths[i] ?? 0)
        const pad = ' '.repeat(Math.max(0, w - width(text)))
        const padded = align[i] === 'right' ? pad + text : i === last ? text : text + pad
        return paint(cell.tone, padded)
      })
      out.push(line.join('  ').trimEnd())
    }
  }
  return out
}

/**
 * The words of `text` for wrapping: split at spaces, except the spaces of a
 * grouped number (`12 000`, `3 629+2 186`), which is one word: a number is
 * never split across lines.
 */
function words(text: string): string[] {
  const out: string[] = []
  for (const word of text.split(' ')) {
    const prev = out.at(-1)
    if (prev !== undefined && /(^|[^\d\p{L}])\d{1,3}$/u.test(prev) && /^\d{3}(?!\d)/.test(word))
      out[out.length - 1] = `${prev} ${word}`
    else out.push(word)
  }
  return out
}

/** `text` in lines of at most `room` characters, broken at word boundaries (a longer word, a path, stays whole). */
export function wrap(text: string, room: number): string[] {
  if (width(text) <= room) return [text]
  const out: string[] = []
  let line = ''
  for (const word of words(text)) {
    if (line !== '' && width(line) + 1 + width(word) > room) {
      out.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  out.push(line)
  return out
}

/**
 * A paragraph for people: `text` wrapped at word boundaries to `columns`,
 * continuation lines indented by `hang` spaces; nothing is cut.
 */
export function paragraph(text: string, columns: number, hang = 2): string[] {
  const [first = '', ...rest] = wrap(text, columns)
  const tail = rest.join(' ')
  return tail === ''
    ? [first]
    : [first, ...wrap(tail, Math.max(10, columns - hang)).map((l) => ' '.repeat(hang) + l)]
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

/**
 * A horizontal bar of `fraction` (0…1) of `cells` characters, drawn with
 * Unicode block elements in eighths of a cell. A non-zero fraction too
 * small to see still gets the thinnest block, so no section looks free.
 */
export function bar(fraction: number, cells: number): string {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0
  const eighths = Math.round(f * cells * 8)
  if (eighths === 0) return f > 0 ? '▏' : ''
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]
}

/** A percentage with one decimal (`12.5%`). */
export function percent(part: number, whole: number): string {
  if (whole <= 0) return '0.0%'
  return `${((part / whole) * 100).toFixed(1)}%`
}

/** `text` cut to `max` characters with `…`, line breaks shown as `⏎` and controls made visible, for one table cell. */
export function clip(text: string, max: number): string {
  const flat = visible(text.replace(/\r\n|\r|\n/g, '⏎'))
  if (width(flat) <= max) return flat
  return `${[...flat].slice(0, Math.max(0, max - 1)).join('')}…`
}

/**
 * JSON for `--json`, the one writer of every command: two-space
 * indentation, a final newline, and the exact text with C1 and
 * bidirectional controls as `\u` escapes (`jsonText`).
 */
export function json(value: unknown): string {
  return `${jsonText(value)}\n`
}

/** The width tables must fit: the terminal's columns, else `COLUMNS`, else 80 (what a pipe or a log gets). */
export function terminalWidth(io: Io): number {
  const columns = io.stdout.isTTY === true ? io.stdout.columns : undefined
  if (columns !== undefined && columns > 0) return columns
  const env = Number(io.env.COLUMNS)
  return Number.isInteger(env) && env >= 20 ? env : 80
}

/**
 * The label of a token count: the tokenizer it was counted with, and a word
 * when that is not the provider's own tokenizer (o200k and cl100k are
 * OpenAI's; Anthropic and Gemini count with their own, and `estimate` is
 * characters / 4 for everyone), so no count passes for exact when it is not.
 */
export function tokenLabel(tokenizer: string, provider: string): string {
  const exact = provider === 'openai' && (tokenizer === 'o200k' || tokenizer === 'cl100k')
  return exact ? tokenizer : `${tokenizer}; an approximation for ${provider}`
}
