/**
 * The one output sanitizer of the command line. Everything a command
 * prints is repository text somewhere (file names, instruction files,
 * template text, values, session reasons), and a terminal or a CI log reads
 * some characters as commands: ESC starts escape sequences (OSC 52 writes
 * the clipboard, `ESC[2K ESC[1A` erases the line above), C1 controls are
 * the same commands in one character (U+009B is CSI), bidirectional
 * controls reorder what a reader sees, and a log line starting with `::`
 * (GitHub Actions' workflow commands, after leading white space) or holding
 * `##[` (the older form, anywhere in a line; Azure Pipelines' `##vso[`)
 * makes the CI runner act.
 *
 * Escapes are made visible, never stripped, so a reader sees that something
 * was there:
 * - C0 controls except tab and line feed (a carriage return stays only
 *   before a line feed), and DEL: `\x1b`, `\x07`, `\x7f`;
 * - C1 controls (U+0080–U+009F): `\u009b`;
 * - bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
 *   U+061C): `<U+202E>`;
 * - a line whose first character after white space would be `::` gets a
 *   backslash before it (`\::error::…`): the runner trims leading white
 *   space, so a space would not do;
 * - `[` after `##` (and letters, as in `##vso[`) gets a backslash (`##\[`).
 *
 * Our own colours are applied after sanitizing: the painter writes each code
 * as a mark that carries a random key of this process (`colourCode`), which
 * repository text cannot guess, and the output stream turns only those
 * marks into real SGR codes. JSON (`jsonText`) keeps the exact text: the
 * same characters become `\u` escapes inside its strings, which parse back
 * to what was there.
 */
import type { Io, OutStream } from './io.js'

/** Bidirectional controls: embeddings, overrides, isolates, and the direction marks (LRM, RLM, ALM). */
export function isBidiControl(c: number): boolean {
  return (
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2066 && c <= 0x2069) ||
    c === 0x200e ||
    c === 0x200f ||
    c === 0x061c
  )
}

/** C0 controls, DEL and C1 controls (tab, line feed and carriage return are decided by the caller). */
function isControl(c: number): boolean {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f)
}

/** White space that a CI runner trims before it looks for `::` (.NET's `Char.IsWhiteSpace`, less what is escaped anyway). */
function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    c === 0x09 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
const hex = (c: number, digits: number) => c.toString(16).padStart(digits, '0')

/** How one character that must not reach a terminal is shown: `\x1b`, `\u009b`, `<U+202E>`. */
function shown(c: number): string {
  if (c < 0x80) return `\\x${hex(c, 2)}`
  if (c <= 0x9f) return `\\u${hex(c, 4)}`
  return `<U+${hex(c, 4).toUpperCase()}>`
}

/** Where a scan stands between two chunks of one stream. */
interface ScanState {
  /** Only white space (or colour marks) so far on this line. */
  lineStart: boolean
  /** `#` characters just seen (2 means at least two). */
  hashes: number
  /** Letters after `##`, as in `##vso`. */
  afterHashes: boolean
}

/** The random key of this process's colour marks, made on the first colour. */
let markKey: string | undefined

function newKey(): string {
  const bytes = new Uint8Array(12)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => hex(b, 2)).join('')
}

/**
 * The mark of our own SGR code `code` (`1` bold, `31` red…): what the
 * painter writes; the output stream turns it into `ESC[<code>m`, and any
 * other ESC into `\x1b`.
 */
export function colourCode(code: number): string {
  markKey ??= newKey()
  return `\u001b${markKey}[${code}m`
}

/** The length of our colour mark at `i` (0 when there is none there). */
function markAt(text: string, i: number): number {
  if (markKey === undefined || !text.startsWith(markKey, i + 1)) return 0
  let j = i + 1 + markKey.length
  if (text.charCodeAt(j) !== 0x5b) return 0
  j++
  const digits = j
  while (j < text.length && j - digits < 3 && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++
  if (j === digits || text.charCodeAt(j) !== 0x6d) return 0
  return j + 1 - i
}

/**
 * One pass over `text` in `state`; `lines` applies the line-start rule
 * (a whole stream), `marks` turns colour marks into SGR codes.
 */
function scan(text: string, state: ScanState, lines: boolean, marks: boolean): string {
  let out = ''
  let from = 0
  const put = (i: number, replacement: string) => {
    out += text.slice(from, i) + replacement
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x1b && marks) {
      const mark = markAt(text, i)
      if (mark > 0) {
        const code = text.slice(i + 2 + markKey!.length, i + mark)
        put(i, `\u001b[${code}`)
        i += mark - 1
        from = i + 1
        state.hashes = 0
        state.afterHashes = false
        continue
      }
    }
    if (c === 0x0a) {
      state.lineStart = true
      state.hashes = 0
      state.afterHashes = false
      continue
    }
    const keep = c === 0x09 || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a)
    if (!keep && (isControl(c) || isBidiControl(c))) {
      put(i, shown(c))
      from = i + 1
      state.lineStart = false
      state.hashes = 0
      state.afterHashes = false
      continue
    }
    if (lines && state.lineStart) {
      if (isSpace(c) || c === 0x0d) continue
      state.lineStart = false
      // `::` at the start of a line, or a `:` that ends this chunk there (the next may start with `:`).
      if (c === 0x3a && (i + 1 === text.length || text.charCodeAt(i + 1) === 0x3a)) {
        put(i, '\\')
        from = i
      }
    }
    if (c === 0x23) {
      state.hashes = Math.min(2, state.hashes + 1)
      state.afterHashes = false
    } else if (c === 0x5b && (state.hashes === 2 || state.afterHashes)) {
      put(i, '\\')
      from = i
      state.hashes = 0
      state.afterHashes = false
    } else if (isLetter(c) && (state.hashes === 2 || state.afterHashes)) {
      state.hashes = 0
      state.afterHashes = true
    } else {
      state.hashes = 0
      state.afterHashes = false
    }
  }
  return out === '' ? text : out + text.slice(from)
}

/**
 * `text` with every control, DEL, C1 and bidirectional control made
 * visible and `##[` broken, for a place inside a line (a table cell, a
 * clipped value): what a stream would print, measured before padding.
 */
export function visible(text: string): string {
  return scan(text, { lineStart: false, hashes: 0, afterHashes: false }, false, false)
}

/**
 * `text` as prose output prints it when it is written on its own to a fresh
 * stream: {@link visible}, plus the line-start rule and our colour marks
 * turned into SGR codes.
 */
export function sanitizeProse(text: string): string {
  return scan(text, { lineStart: true, hashes: 0, afterHashes: false }, true, true)
}

/**
 * A stream that sanitizes every write, keeping its state between writes (a
 * line may be written in pieces), and whose `exact` writes bytes unchanged
 * (`show` into a file or a pipe).
 */
export function safeStream(inner: OutStream): OutStream {
  const state: ScanState = { lineStart: true, hashes: 0, afterHashes: false }
  return {
    write: (text: string) => inner.write(scan(text, state, true, true)),
    exact: (text: string) => {
      if (text.length > 0) {
        state.lineStart = text.endsWith('\n')
        state.hashes = 0
        state.afterHashes = false
      }
      return inner.write(text)
    },
    get isTTY() {
      return inner.isTTY
    },
    get columns() {
      return inner.columns
    },
  }
}

/** `io` with both streams sanitized: what `run` hands to every command. */
export function safeIo(io: Io): Io {
  return { ...io, stdout: safeStream(io.stdout), stderr: safeStream(io.stderr) }
}

/** Writes `text` byte for byte: through the stream's `exact` when it sanitizes, else as it is. */
export function writeExact(stream: OutStream, text: string): void {
  if (stream.exact !== undefined) stream.exact(text)
  else stream.write(text)
}

/** Characters JSON keeps as they are but a terminal would act on (or a reader misread): DEL, C1, bidi, line separators. */
function jsonEscaped(c: number): boolean {
  return (c >= 0x7f && c <= 0x9f) || isBidiControl(c) || c === 0x2028 || c === 0x2029
}

/**
 * JSON text of `value` (two-space indentation) that is safe to print: the
 * exact value (`JSON.parse` gives it back), with DEL, C1 (`\u0080`–`\u009f`),
 * bidirectional controls and U+2028/U+2029 written as `\u` escapes besides
 * what `JSON.stringify` escapes, and the `[` of `##[` as `\u005b`.
 */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? 'null'
  let out = ''
  let from = 0
  let hashes = 0
  let afterHashes = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (jsonEscaped(c)) {
      out += `${text.slice(from, i)}\\u${hex(c, 4)}`
      from = i + 1
      hashes = 0
      afterHashes = false
    } else if (c === 0x23) {
      hashes = Math.min(2, hashes + 1)
      afterHashes = false
    } else if (c === 0x5b && (hashes === 2 || afterHashes)) {
      // Only inside a string: outside one, JSON puts no `#` before a `[`.
      out += `${text.slice(from, i)}\\u005b`
      from = i + 1
      hashes = 0
      afterHashes = false
    } else if (isLetter(c) && (hashes === 2 || afterHashes)) {
      hashes = 0
      afterHashes = true
    } else {
      hashes = 0
      afterHashes = false
    }
  }
  return from === 0 ? text : out + text.slice(from)
}
