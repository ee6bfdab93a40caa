import { basename, join } from 'node:path'
import {
  fromFile,
  joinMapped,
  type MappedText,
  plain,
  removeRanges,
  type SourceSpan,
  trimMapped,
} from '../../../shared/source-map.js'
import type { DiscoveryContext } from '../context.js'
import type { InstructionMode } from '../discovery-options.js'
import type { HarnessMark, HarnessPart, HarnessView } from '../discovery-results.js'

/**
 * One file as the view sees it: the text the mode keeps for it (after any
 * cap), or, for a file the harness would send that sysprompt withholds,
 * the mark that stands in its place (`withheld` then holds the reason).
 */
export interface ViewEntry {
  path: string
  kind: 'global' | 'project' | 'import'
  text: string
  /** Where each stretch of `text` came from (none for a withheld mark). */
  map: readonly SourceSpan[]
  withheld?: string
}

/** A late-bound file as the view sees it (a withheld one holds its mark, as in `ViewEntry`). */
export interface ViewLate {
  path: string
  text: string
  /** Where each stretch of `text` came from (none for a withheld mark or a file read in a way not followed). */
  map?: readonly SourceSpan[]
  withheld?: string
}

/** An entry's text with its map, to build a part from. */
function mapped(entry: ViewLate): MappedText {
  return { text: entry.text, map: [...(entry.map ?? [])] }
}

/** The files a part carries and the withheld marks that stand in it, from its entries. */
function carried(entries: readonly ViewLate[]): Pick<HarnessPart, 'files' | 'withheld'> {
  return {
    files: entries.filter((e) => e.withheld === undefined).map((e) => e.path),
    withheld: entries.flatMap((e) =>
      e.withheld === undefined ? [] : [{ mark: e.text, path: e.path, reason: e.withheld }],
    ),
  }
}

/**
 * Prose a harness wraps around the files, kept as its size only: views
 * mark its place instead of copying it (a decision of issue 15). Counted
 * once from the harness's published package with each built-in tokenizer;
 * `chars` gives the estimate for any other tokenizer.
 */
interface Prose {
  label: string
  o200k: number
  cl100k: number
  chars: number
}

// Claude Code 2.1.332: the <system-reminder> opening and the paragraph telling the model to follow the files.
const CLAUDE_PREAMBLE: Prose = { label: 'Claude Code preamble', o200k: 40, cl100k: 39, chars: 211 }
// Gemini CLI core 0.61.0 renderUserMemory: the precedence and conflict-resolution prose under its heading.
const GEMINI_PREAMBLE: Prose = { label: 'Gemini CLI preamble', o200k: 161, cl100k: 163, chars: 831 }

// pi 1.6.0 with its default tools: its preamble, tools, rules and docs sections, counted with the docs naming a
// global install (/usr/lib/node_modules/@earendil-works/pi-coding-agent/…); another install path shifts a few tokens.
const PI_BASE: Prose = { label: 'pi base prompt', o200k: 486, cl100k: 488, chars: 2207 }

function markOf(context: DiscoveryContext, prose: Prose): HarnessMark {
  const name = context.tokenizerName
  const tokens = name === 'o200k' || name === 'cl100k' ? prose[name] : Math.ceil(prose.chars / 4)
  return { mark: `[${prose.label}: ${tokens} tokens]`, tokens }
}

function part(
  context: DiscoveryContext,
  built: MappedText,
  fields: Omit<HarnessPart, 'text' | 'sourceMap' | 'compared' | 'tokens' | 'marks' | 'exact' | 'withheld'> & {
    marks?: HarnessMark[]
    exact?: boolean
    withheld?: HarnessPart['withheld']
  },
): HarnessPart {
  const text = built.text
  const marks = fields.marks ?? []
  const withheld = fields.withheld ?? []
  let tokens = context.count(text)
  for (const m of marks) tokens += m.tokens - context.count(m.mark)
  // A withheld file's text was never read: its mark counts as nothing (at most the tokens around it shift).
  for (const w of withheld) tokens -= context.count(w.mark)
  tokens = Math.max(0, tokens)
  // A view marks at most one stretch of prose, the harness's preamble: what follows it is compared.
  const first = marks[0]
  const compared = first === undefined ? text : text.slice(text.indexOf(first.mark) + first.mark.length)
  return {
    ...fields,
    text,
    sourceMap: built.map,
    marks,
    compared,
    tokens,
    exact: fields.exact ?? true,
    withheld,
  }
}

/**
 * Codex CLI (codex-rs `agents_md.rs`, `user_instructions.rs`): one
 * user-role message of its own, headed for the working directory; the
 * global file first, then `--- project-doc ---`, then the project files
 * joined by a blank line. Codex loads nothing late.
 */
function codex(context: DiscoveryContext, entries: readonly ViewEntry[]): HarnessPart[] {
  const global = entries.filter((e) => e.kind === 'global').map(mapped)
  const project = entries.filter((e) => e.kind !== 'global').map(mapped)
  const body = joinMapped(
    [...global, ...(project.length > 0 ? [joinMapped(project, '\n\n')] : [])],
    '\n\n--- project-doc ---\n\n',
  )
  if (body.text.length === 0) return []
  const built = joinMapped([
    `# AGENTS.md instructions for ${context.cwd}\n\n<INSTRUCTIONS>\n`,
    body,
    '\n</INSTRUCTIONS>',
  ])
  return [part(context, built, { placement: 'separate-message', role: 'user', ...carried(entries) })]
}

/**
 * Claude Code 2.1.332 (recorded): one text block of the first user
 * message, a `<system-reminder>` holding its preamble (marked, not copied)
 * and every file as `Contents of <path> (<kind>):`, a blank line and its
 * text without block HTML comments, trimmed; files separated by a blank line.
 */
function claude(context: DiscoveryContext, entries: readonly ViewEntry[]): HarnessPart[] {
  const kept = entries.filter((e) => e.text.length > 0)
  if (kept.length === 0) return []
  const blocks = kept.map((e) =>
    joinMapped([`Contents of ${e.path} (${claudeKind(context, e)}):\n\n`, sentMapped('claude', mapped(e))]),
  )
  const pre = markOf(context, CLAUDE_PREAMBLE)
  const built = joinMapped([`${pre.mark}\n\n`, joinMapped(blocks, '\n\n'), '\n</system-reminder>'])
  return [
    part(context, built, {
      placement: 'first-user-message',
      role: 'user',
      ...carried(kept),
      marks: [pre],
    }),
  ]
}

/**
 * A file's own text as the mode's harness sends it inside its framing:
 * Claude Code's without the HTML comments on lines of their own, trimmed;
 * every other mode's as discovery keeps it. `inspect` counts a file's
 * tokens on it, so its table and the harness view agree.
 */
export function sentText(mode: InstructionMode, text: string): string {
  return sentMapped(mode, plain(text)).text
}

/** `sentText` with the map carried through the comments left out and the trimming. */
function sentMapped(mode: InstructionMode, text: MappedText): MappedText {
  return mode === 'claude' ? trimMapped(withoutBlockComments(text)) : text
}

/**
 * Claude Code 2.1.332 leaves out HTML comments that stand on lines of their
 * own, with their line break (recorded on pydantic-ai's nested AGENTS.md);
 * a comment inside a line of text stays. Comments inside code fences are
 * removed here too (not recorded).
 */
function withoutBlockComments(text: MappedText): MappedText {
  const ranges = [...text.text.matchAll(/^[ \t]*<!--[\s\S]*?-->[ \t]*(?:\r?\n|$)/gm)].map(
    (m) => [m.index, m.index + m[0].length] as const,
  )
  return removeRanges(text, ranges)
}

function claudeKind(context: DiscoveryContext, entry: ViewEntry): string {
  if (entry.path.startsWith(join(context.home, '.claude')))
    return "user's private global instructions for all projects"
  if (basename(entry.path) === 'CLAUDE.local.md') return "user's private project instructions, not checked in"
  return 'project instructions, checked into the codebase'
}

/**
 * Gemini CLI's block per file (`concatenateInstructions`), absolute paths with `/`.
 * It leaves blank files out; discovery already has (gemini.ts, and on-demand files
 * that are blank are never listed), so every file here has text.
 */
function geminiBlocks(files: readonly ViewLate[]): MappedText {
  return joinMapped(
    files.map((f) =>
      joinMapped([
        `--- Context from: ${f.path} ---\n`,
        trimMapped(mapped(f)),
        `\n--- End of Context from: ${f.path} ---`,
      ]),
    ),
    '\n\n',
  )
}

/**
 * Gemini CLI core 0.61.0 (tiered context): global memory in the system
 * instruction under `# Contextual Instructions (<names>)` and its prose;
 * project memory in the first user message inside `<loaded_context>` and
 * `<project_context>`; files below cwd appended to a tool result as
 * just-in-time context.
 */
function gemini(
  context: DiscoveryContext,
  entries: readonly ViewEntry[],
  late: readonly ViewLate[],
): HarnessPart[] {
  const parts: HarnessPart[] = []
  const global = entries.filter((e) => e.kind === 'global')
  const project = entries.filter((e) => e.kind !== 'global')
  const globalText = geminiBlocks(global)
  if (globalText.text.length > 0) {
    const names = ['GEMINI.md', ...(context.options.names ?? [])].filter((n, i, all) => all.indexOf(n) === i)
    const pre = markOf(context, GEMINI_PREAMBLE)
    const built = joinMapped([
      `# Contextual Instructions (${names.join(', ')})\n${pre.mark}\n\n<loaded_context>\n`,
      globalText,
      '\n</loaded_context>',
    ])
    parts.push(
      part(context, built, {
        placement: 'system-prompt',
        role: 'system',
        ...carried(global),
        marks: [pre],
      }),
    )
  }
  const projectText = geminiBlocks(project)
  if (projectText.text.length > 0) {
    const built = joinMapped([
      '<loaded_context>\n<project_context>\n',
      projectText,
      '\n</project_context>\n</loaded_context>',
    ])
    parts.push(
      part(context, built, {
        placement: 'first-user-message',
        role: 'user',
        ...carried(project),
        // The flat import layout is not reproduced: imports stay inlined as in the tree layout.
        exact: context.setting('context.importFormat')?.value !== 'flat',
      }),
    )
  }
  const lateText = geminiBlocks(late)
  if (lateText.text.length > 0) {
    const built = joinMapped([
      '\n\n--- Newly Discovered Project Context ---\n',
      lateText,
      '\n--- End Project Context ---',
    ])
    parts.push(part(context, built, { placement: 'tool-result', role: 'tool', ...carried(late) }))
  }
  return parts
}

/**
 * pi (`core/system-prompt.ts`): `SYSTEM.md` in place of its base prompt and
 * `APPEND_SYSTEM.md` after it, then the context files appended under
 * `# Project Context`, each file as `## <path>`, a blank line, its text as
 * read and a blank line.
 */
function pi(context: DiscoveryContext, entries: readonly ViewEntry[]): HarnessPart[] {
  if (context.profile?.behaviour.piSections === true) return piSections(context, entries)
  const { replace, append } = context.promptFiles
  const files = joinMapped(entries.map((e) => joinMapped([`## ${e.path}\n\n`, mapped(e), '\n\n'])))
  const project =
    entries.length === 0
      ? undefined
      : joinMapped(['# Project Context\n\nProject-specific instructions and guidelines:\n\n', files])
  // SYSTEM.md stands in for the base prompt; APPEND_SYSTEM.md follows it after a blank line, then the context files.
  const own = [replace, append].filter((f) => f !== undefined).map((f) => fromFile(f.path, f.text))
  const built = joinMapped([...own, ...(project === undefined ? [] : [project])], '\n\n')
  if (built.text.length === 0) return []
  const paths = [replace?.path, append?.path].filter((p) => p !== undefined)
  const { files: carriedFiles, withheld } = carried(entries)
  return [
    part(context, built, {
      placement: 'system-prompt',
      role: 'system',
      files: [...paths, ...carriedFiles],
      withheld,
    }),
  ]
}

/**
 * pi 1.x (`core/system-prompt` of 1.6.0, `getSystemMessageText` of its
 * pi-ai): named sections joined by a blank line, each but the preamble
 * inside `<name>` tags: the preamble (`SYSTEM.md`, else pi's own, marked
 * with its tools, rules and docs sections), `<addendum>`
 * (`APPEND_SYSTEM.md`), `<project_context>` (a line, then one
 * `<project_instructions path="…">` block per file, its text as read),
 * `<skills>` (see `pi-skills.ts`) and `<cwd>`. An empty
 * `SYSTEM.md` or `APPEND_SYSTEM.md` counts as none, as in pi. No part
 * when neither a context file, a prompt file nor a skill is read.
 */
function piSections(context: DiscoveryContext, entries: readonly ViewEntry[]): HarnessPart[] {
  const replace = context.promptFiles.replace?.text ? context.promptFiles.replace : undefined
  const append = context.promptFiles.append?.text ? context.promptFiles.append : undefined
  if (entries.length === 0 && replace === undefined && append === undefined && context.piSkills === undefined)
    return []
  const marks = replace === undefined ? [markOf(context, PI_BASE)] : []
  const sections: MappedText[] = [
    replace === undefined ? plain(marks[0]!.mark) : fromFile(replace.path, replace.text),
  ]
  if (append !== undefined)
    sections.push(joinMapped(['<addendum>\n', fromFile(append.path, append.text), '\n</addendum>']))
  if (entries.length > 0) {
    const blocks = entries.map((e) =>
      joinMapped([`<project_instructions path="${e.path}">\n`, mapped(e), '\n</project_instructions>']),
    )
    const body = joinMapped(['Project-specific instructions and guidelines:', ...blocks], '\n\n')
    sections.push(joinMapped(['<project_context>\n', body, '\n</project_context>']))
  }
  if (context.piSkills !== undefined) sections.push(plain(`<skills>\n${context.piSkills}\n</skills>`))
  sections.push(plain(`<cwd>\n${context.cwd.replace(/\\/g, '/')}\n</cwd>`))
  const { files, withheld } = carried(entries)
  const own = [replace?.path, append?.path].filter((p) => p !== undefined)
  return [
    part(context, joinMapped(sections, '\n\n'), {
      placement: 'system-prompt',
      role: 'system',
      files: [...own, ...files],
      withheld,
      marks,
      // Its <skills> section, when pi would send one, is not reproduced.
      exact: context.unmodelled.length === 0,
    }),
  ]
}

/**
 * opencode (`session/instruction.ts`): each file as `Instructions from:
 * <path>`, a line break and its text, in the system prompt, one line
 * break between files. The framing of its lazily loaded files is not
 * reproduced (they are listed as a tool-result part without it).
 */
function opencode(
  context: DiscoveryContext,
  entries: readonly ViewEntry[],
  late: readonly ViewLate[],
): HarnessPart[] {
  const parts: HarnessPart[] = []
  if (entries.length > 0) {
    const built = joinMapped(
      entries.map((e) => joinMapped([`Instructions from: ${e.path}\n`, mapped(e)])),
      '\n',
    )
    parts.push(part(context, built, { placement: 'system-prompt', role: 'system', ...carried(entries) }))
  }
  parts.push(...unframedLate(context, late))
  return parts
}

/** Late-bound files of a harness whose tool-result framing is not reproduced: their texts, marked inexact. */
function unframedLate(context: DiscoveryContext, late: readonly ViewLate[]): HarnessPart[] {
  if (late.length === 0) return []
  return [
    part(context, joinMapped(late.map(mapped), '\n\n'), {
      placement: 'tool-result',
      role: 'tool',
      ...carried(late),
      exact: false,
    }),
  ]
}

/** sysprompt's own: the discovery text, in the system prompt (what sysprompt withholds it never sends, so no mark). */
function sysprompt(
  context: DiscoveryContext,
  entries: readonly ViewEntry[],
  text: MappedText,
): HarnessPart[] {
  if (text.text.length === 0) return []
  return [part(context, text, { placement: 'system-prompt', role: 'system', ...carried(sent(entries)) })]
}

/**
 * A convention mode (issue 16): its tool's framing is not published, so the
 * discovery text stands in the system prompt and late-bound rules in a
 * tool result, both marked inexact. The discovery text has no place for a
 * withheld file's mark: `explain` and the discovery's `withheld` list say
 * what the tool would also send.
 */
function convention(
  context: DiscoveryContext,
  entries: readonly ViewEntry[],
  late: readonly ViewLate[],
  text: MappedText,
): HarnessPart[] {
  const start = sysprompt(context, entries, text).map((p) => ({ ...p, exact: false }))
  return [...start, ...unframedLate(context, sent(late))]
}

/** The entries without the withheld ones. */
function sent<T extends ViewLate>(entries: readonly T[]): T[] {
  return entries.filter((e) => e.withheld === undefined)
}

/**
 * The harness view of one discovery (SPEC §6): the text and placement the
 * mode's harness sends for the files it loaded, with the late-bound files
 * where the harness puts them. A file the harness would send that sysprompt
 * withholds keeps its place and framing, its text replaced by a mark
 * (`[withheld: links to .env, a denied file; Claude Code would send it]`,
 * listed in the part's `withheld`).
 */
export function harnessView(
  context: DiscoveryContext,
  entries: readonly ViewEntry[],
  late: readonly ViewLate[],
  text: MappedText,
): HarnessView {
  const mode: InstructionMode = context.mode
  const parts =
    mode === 'codex'
      ? codex(context, entries)
      : mode === 'claude'
        ? [...claude(context, entries), ...unframedLate(context, late)]
        : mode === 'gemini'
          ? gemini(context, entries, late)
          : mode === 'pi'
            ? pi(context, entries)
            : mode === 'opencode'
              ? opencode(context, entries, late)
              : mode === 'sysprompt'
                ? sysprompt(context, entries, text)
                : convention(context, entries, late, text)
  return context.viewNotes.length === 0 ? { mode, parts } : { mode, parts, notes: [...context.viewNotes] }
}
