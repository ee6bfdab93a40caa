import { hashText } from '../shared/hash.js'
import type { CompiledPrompt, CompiledSection } from './types.js'

/** One file a locked section includes: its path as the prompt names it, the hash of its text there and its lines in the prompt. */
export interface LockFile {
  path: string
  hash: string
  /** First and last line (1-based, inclusive) of the prompt text it occupies. */
  lines: [number, number]
}

/** What a section's lock entry records about the files it includes. */
export interface SectionFiles {
  files: LockFile[]
  /** Hash of the section's own text: its text with every included file's text taken out. */
  textHash: string
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

/**
 * The included files of one compiled section, for its lock entry; `undefined`
 * when it includes none. Nested spans (an import inside an instruction file)
 * are listed too, but only the outermost are taken out for `textHash`.
 */
export function sectionFiles(compiled: CompiledPrompt, section: CompiledSection): SectionFiles | undefined {
  const spans = section.files
  if (spans === undefined || spans.length === 0) return undefined
  const { text } = compiled
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end)
  const files: LockFile[] = spans.map((f) => ({
    path: f.path,
    // A file's own text: an import inlined in it is hashed as its own entry, so a change there blames the import only.
    hash: hashText(
      without(
        text,
        f.start,
        f.end,
        sorted.filter((g) => g !== f && g.start >= f.start && g.end <= f.end),
      ),
    ),
    lines: [lineAt(text, f.start), lineAt(text, Math.max(f.start, f.end - 1))],
  }))
  return { files, textHash: hashText(without(text, section.start, section.end, sorted)) }
}

/** `text.slice(start, end)` with each of `holes` (sorted by start; nested ones skipped) replaced by one NUL. */
function without(
  text: string,
  start: number,
  end: number,
  holes: readonly { start: number; end: number }[],
): string {
  let out = ''
  let at = start
  for (const hole of holes) {
    if (hole.start < at) continue // inside one already taken out
    out += `${text.slice(at, hole.start)}\u0000`
    at = hole.end
  }
  return out + text.slice(at, end)
}

/** `a–b`, or `a` for one line. */
export const lineRange = ([a, b]: [number, number]): string => (a === b ? `line ${a}` : `lines ${a}–${b}`)

/** One way the included files of a section differ from the lock. */
export interface FileChange {
  path: string
  kind: 'changed' | 'added' | 'removed'
  /** The lines in the current prompt (for `removed`, in the locked one). */
  lines: [number, number]
  message: string
}

/** The files of a section that differ from its lock entry, by path, in the current prompt's order. */
export function fileChanges(section: string, locked: LockFile[], current: LockFile[]): FileChange[] {
  const out: FileChange[] = []
  const before = new Map(locked.map((f) => [f.path, f]))
  const now = new Set(current.map((f) => f.path))
  for (const f of current) {
    const was = before.get(f.path)
    if (was === undefined) {
      out.push({
        path: f.path,
        kind: 'added',
        lines: f.lines,
        message: `${f.path} is newly included in section "${section}", at prompt ${lineRange(f.lines)}`,
      })
    } else if (was.hash !== f.hash) {
      const moved =
        was.lines[0] === f.lines[0] && was.lines[1] === f.lines[1] ? '' : ` (was ${lineRange(was.lines)})`
      out.push({
        path: f.path,
        kind: 'changed',
        lines: f.lines,
        message: `${f.path} changed, at prompt ${lineRange(f.lines)}${moved} in section "${section}"`,
      })
    }
  }
  for (const f of locked) {
    if (now.has(f.path)) continue
    out.push({
      path: f.path,
      kind: 'removed',
      lines: f.lines,
      message: `${f.path} is no longer included in section "${section}" (it was at prompt ${lineRange(f.lines)})`,
    })
  }
  return out
}
