import type { InstructionMode } from './discovery-options.js'

/**
 * Withheld text (issue 30): what a harness would really send that sysprompt
 * does not read, for safety. One mark stands in its place in harness views
 * and one sentence says why in `explain`; comparisons with what the harness
 * sent treat the mark as a known difference. Any cause uses the same
 * pieces: a reason in words, the harness's name, the mark.
 */

/** The harness each mode reproduces, as its users call it; `undefined` for sysprompt's own mode. */
const HARNESS_NAMES: Readonly<Partial<Record<InstructionMode, string>>> = {
  codex: 'Codex CLI',
  claude: 'Claude Code',
  gemini: 'Gemini CLI',
  pi: 'pi',
  opencode: 'opencode',
  copilot: 'Copilot',
  cursor: 'Cursor',
  windsurf: 'Windsurf',
  cline: 'Cline',
  kiro: 'Kiro',
  zed: 'Zed',
  junie: 'Junie',
  amp: 'Amp',
  continue: 'Continue',
}

/** The name of the harness a mode reproduces (`Claude Code`); `undefined` in `sysprompt` mode. */
export function harnessName(mode: InstructionMode): string | undefined {
  return HARNESS_NAMES[mode]
}

/**
 * The sentence for a withheld file, as `explain` gives it and the mark
 * holds it: `withheld: links to .env, a denied file; Claude Code would send
 * it` (in `sysprompt` mode, which sends nothing of its own: `not read: …`).
 */
export function withheldWords(mode: InstructionMode, reason: string): string {
  const name = harnessName(mode)
  return name === undefined ? `not read: ${reason}` : `withheld: ${reason}; ${name} would send it`
}

/** The mark that stands in a harness view for a withheld file's text. */
export function withheldMark(mode: InstructionMode, reason: string): string {
  return `[${withheldWords(mode, reason)}]`
}

/**
 * Whether `recorded` (what the harness really sent) equals `compared` (the
 * view) where each of `marks` in it may stand for any text, the text the
 * harness sent for the withheld file: the one known difference. Literal
 * pieces are matched in order, the first at the start and the last at the
 * end, each other at its leftmost place (linear in the texts' length, no
 * regular expression built from repository text).
 */
export function matchesAroundMarks(compared: string, marks: readonly string[], recorded: string): boolean {
  const pieces = splitAtMarks(compared, marks)
  if (pieces.length === 1) return compared === recorded
  const first = pieces[0]!
  const last = pieces[pieces.length - 1]!
  if (first.length + last.length > recorded.length) return false
  if (!recorded.startsWith(first) || !recorded.endsWith(last)) return false
  let at = first.length
  const end = recorded.length - last.length
  for (const piece of pieces.slice(1, -1)) {
    const found = recorded.indexOf(piece, at)
    if (found === -1 || found + piece.length > end) return false
    at = found + piece.length
  }
  return true
}

/** `text` cut at each occurrence of any of `marks`, in order (the marks themselves dropped). */
export function splitAtMarks(text: string, marks: readonly string[]): string[] {
  const pieces: string[] = []
  let from = 0
  for (;;) {
    let next = -1
    let length = 0
    for (const mark of marks) {
      if (mark.length === 0) continue
      const at = text.indexOf(mark, from)
      if (at !== -1 && (next === -1 || at < next)) {
        next = at
        length = mark.length
      }
    }
    if (next === -1) break
    pieces.push(text.slice(from, next))
    from = next + length
  }
  pieces.push(text.slice(from))
  return pieces
}
