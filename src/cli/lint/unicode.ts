import type { TextHit } from './types.js'

const NAMES: Record<number, string> = {
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
  65279: 'ZERO WIDTH NO-BREAK SPACE (BOM)',
}

/** Names of the C0 controls, DEL and the C1 controls, as the standards abbreviate them. */
const C0 =
  'NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US'.split(
    ' ',
  )
const C1 =
  'PAD HOP BPH NBH IND NEL SSA ESA HTS HTJ VTS PLD PLU RI SS2 SS3 DCS PU1 PU2 STS CCH MW SPA EPA SOS SGCI SCI CSI ST OSC PM APC'.split(
    ' ',
  )

/** A control character a terminal acts on: C0 but tab and line feed (carriage return only before a line feed), DEL, C1. */
function isControlAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  if (c === 0x09 || c === 0x0a) return false
  if (c === 0x0d) return text.charCodeAt(i + 1) !== 0x0a
  return c < 0x20 || (c >= 0x7f && c <= 0x9f)
}

/** What a control does, for the message: the escape introducers start commands, CR and BS rewrite the line. */
function controlEffect(c: number): string {
  if (c === 0x1b || c === 0x9b || c === 0x9d || c === 0x90 || c === 0x9e || c === 0x9f)
    return 'a terminal reads what follows as a command (it can rewrite the screen, set the clipboard, change the title)'
  if (c === 0x0d)
    return 'not before a line feed: a terminal returns to the start of the line and overwrites it'
  if (c === 0x08) return 'a terminal moves back and overwrites what was printed'
  return 'a terminal acts on it instead of showing it'
}

const hex = (c: number) => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`

/** Bidirectional embedding, override and isolate controls: they reorder what a reader sees (Trojan Source). */
function isBidiControl(c: number): boolean {
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
}

/** Zero-width characters and direction marks: invisible, but legitimate in some scripts. */
function isInvisible(c: number, offset: number): boolean {
  return (c >= 0x200b && c <= 0x200f) || (c === 0xfeff && offset > 0)
}

/** A tag character (U+E0000–U+E007F) is the surrogate pair DB40 DC00–DC7F. */
function isTagAt(text: string, i: number): boolean {
  const low = text.charCodeAt(i + 1)
  return text.charCodeAt(i) === 0xdb40 && low >= 0xdc00 && low <= 0xdc7f
}

/** Whether the code unit ends or begins an emoji, where a ZERO WIDTH JOINER is part of the picture (👩‍💻). */
function isEmojiUnit(c: number): boolean {
  return (c >= 0xd800 && c <= 0xdfff) || c === 0xfe0f || (c >= 0x2600 && c <= 0x27bf)
}

/**
 * Invisible and bidirectional Unicode and control characters in included
 * text (SPEC §9), one hit per run of the same character, in one pass over
 * the text:
 * - control characters (C0 but tab and line feed, a carriage return not
 *   before a line feed, DEL, C1): errors, a terminal that prints the text
 *   acts on them (ESC and CSI start escape sequences);
 * - bidirectional embedding/override/isolate controls (U+202A–U+202E,
 *   U+2066–U+2069): errors, they make text read differently from how it is
 *   parsed;
 * - tag characters (U+E0000–U+E007F): errors, they spell ASCII that no
 *   reader sees (the message shows it), except a flag's tag sequence after 🏴;
 * - zero-width characters and direction marks (U+200B–U+200F) and a BOM
 *   after the start: warnings, as they also occur in honest text (a ZERO
 *   WIDTH JOINER between two emoji is part of the emoji and not reported).
 */
export function scanUnicode(text: string): TextHit[] {
  const hits: TextHit[] = []
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (isTagAt(text, i)) {
      const start = i
      let hidden = ''
      let last = 0
      while (isTagAt(text, i)) {
        last = text.charCodeAt(i + 1) - 0xdc00
        if (last >= 0x20 && last <= 0x7e) hidden += String.fromCharCode(last)
        i += 2
      }
      // 🏴 (U+1F3F4) + tags + CANCEL TAG is a subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿), not hidden text.
      const flag =
        text.charCodeAt(start - 2) === 0xd83c && text.charCodeAt(start - 1) === 0xdff4 && last === 0x7f
      if (!flag) {
        const count = (i - start) / 2
        const shown = hidden.length > 60 ? `${hidden.slice(0, 59)}…` : hidden
        hits.push({
          offset: start,
          severity: 'error',
          code: 'unicode-tags',
          message:
            `${count} invisible Unicode tag character${count > 1 ? 's' : ''} (U+E0000–U+E007F)` +
            (hidden.length > 0 ? ` spelling hidden text ${JSON.stringify(shown)}` : '') +
            ': remove them',
        })
      }
      continue
    }
    if (isControlAt(text, i)) {
      const start = i
      while (text.charCodeAt(i) === c && isControlAt(text, i)) i++
      const count = i - start
      const name = c < 0x20 ? C0[c] : c === 0x7f ? 'DEL' : C1[c - 0x80]
      hits.push({
        offset: start,
        severity: 'error',
        code: 'control-character',
        message: `control character ${count > 1 ? `${count} × ` : ''}${hex(c)} ${name}: ${controlEffect(c)}; remove it`,
      })
      continue
    }
    const bidi = isBidiControl(c)
    if (!bidi && !isInvisible(c, i)) {
      i++
      continue
    }
    if (c === 0x200d && isEmojiUnit(text.charCodeAt(i - 1)) && isEmojiUnit(text.charCodeAt(i + 1))) {
      i++
      continue
    }
    const start = i
    while (text.charCodeAt(i) === c) i++
    const count = i - start
    const what = `${count > 1 ? `${count} × ` : ''}${hex(c)} ${NAMES[c] ?? ''}`.trim()
    hits.push(
      bidi
        ? {
            offset: start,
            severity: 'error',
            code: 'bidi-control',
            message: `bidirectional control ${what}: it reorders how the text reads; remove it`,
          }
        : {
            offset: start,
            severity: 'warning',
            code: 'invisible-unicode',
            message: `invisible character ${what}: remove it unless the script needs it`,
          },
    )
  }
  return hits
}
