import type { SourceSpan } from '../../shared/source-map.js'
import type { InstructionMode, RuleActivation } from './discovery-options.js'
import type { GlobSyntax } from './globs.js'
import type { InstructionSpan } from './render.js'

// What discovery and explain return: the files loaded, their diagnostics, the
// files loaded on demand or on request, the harness view, what is withheld
// and why a file was or was not loaded. What they are asked is in
// `discovery-options.ts`.

/**
 * How the instruction text entered the prompt (seed 003): `full` when every
 * file fit, `truncated` when a byte cap cut something, `synopsis` when a
 * synopsis was asked for, `none` when preloading was turned off.
 */
export type PreloadClass = 'full' | 'truncated' | 'synopsis' | 'none'

/** One instruction file as loaded. */
export interface InstructionFile {
  /** Absolute path (its directory resolved to its real path; the file itself may be a link). */
  path: string
  /** Size of the file as read, in UTF-8 bytes. */
  bytes: number
  /** `sha256:` + hex of the file's text as read (a leading BOM removed). */
  hash: string
  /**
   * Whether a byte cap (or the per-file read limit) cut this file's text;
   * for an inlined import, whether the cut of its importer took any of the
   * text inlined for it.
   */
  truncated: boolean
  /** Files it imports, inlined into its text, in the order they were inlined (modes that inline). */
  imports?: InstructionFile[]
  /** For a file loaded as a block of its own because another imports it (Claude Code's `@path`): the importer's `path`. */
  importedBy?: string
  /** For a rule file of a convention mode: when the tool applies it (`always` for what loads at start). */
  activation?: RuleActivation
}

/** Stable codes of discovery diagnostics. */
export type InstructionDiagnosticCode =
  | 'cwd-outside-root'
  | 'outside-root'
  | 'unreadable'
  | 'read-limit'
  | 'truncated'
  | 'silently-truncated'
  | 'over-budget'
  | 'import-outside-root'
  | 'import-outside-cwd'
  | 'import-missing'
  | 'import-denied'
  | 'import-cycle'
  | 'import-too-deep'
  | 'on-demand-limit'
  | 'harness-config'
  | 'denied'
  | 'repository-name'
  | 'expansion-budget'
  | 'version-not-observed'

/** Something a user can fix or should know about, as data. */
export interface InstructionDiagnostic {
  code: InstructionDiagnosticCode
  severity: 'warning' | 'info'
  message: string
  /** The file concerned (absolute), when there is one. */
  path?: string
  /**
   * Where in which file the finding is (1-based line and column): the
   * importing file's reference for an import problem, the line where a cut
   * falls for a truncation. Absent when the finding is about a whole file.
   */
  site?: DiagnosticSite
}

/** A place in a file: absolute path, 1-based line and column (UTF-16 code units). */
export interface DiagnosticSite {
  path: string
  line: number
  column: number
}

/**
 * When a harness loads a file on demand: when the agent works under a
 * directory (nested CLAUDE.md, Gemini's just-in-time context, opencode's
 * lazy AGENTS.md), or reads a file matching globs relative to `base`
 * (`.claude/rules/*.md` with `paths:`).
 */
export type OnDemandTrigger =
  | { kind: 'under'; dir: string }
  | {
      kind: 'matches'
      globs: readonly string[]
      base: string
      /** How the tool matches `globs` (`globs.ts`); `picomatch` when absent. */
      syntax?: GlobSyntax
      /** The globs as the rule writes them, to show; `globs` joined by `, ` when absent. */
      written?: string
    }

/** A file the harness loads only when the agent reads or edits a file it covers (SPEC §6 on demand). */
export interface OnDemandFile {
  /** Absolute path. */
  path: string
  /** The condition, as a user reads it: `when the agent works under src/api`. */
  when: string
  trigger: OnDemandTrigger
  /** Tokens of the text the harness delivers for it. */
  tokens: number
  bytes: number
  hash: string
  /** The working paths (`paths`) that load it; empty when none does. */
  loadedFor: string[]
  /** `glob` for a rule attached by its globs; absent for a file loaded under its directory. */
  activation?: RuleActivation
}

/**
 * A rule the tool loads neither at start nor for a path: the model asks
 * for it by its description (`requested`), or the user names it (`manual`).
 */
export interface RequestedRule {
  path: string
  activation: 'requested' | 'manual'
  /** What the model decides on (`requested`), when the rule has one. */
  description?: string
  tokens: number
  bytes: number
  hash: string
}

/**
 * An on-demand file loaded for a working path: late-bound, delivered with a
 * tool result (its own slot), never part of the cached prefix.
 */
export interface LateBoundFile {
  path: string
  /** The text as the harness delivers it. */
  text: string
  tokens: number
  bytes: number
  hash: string
  /** The working paths that load it. */
  loadedFor: string[]
}

/**
 * Where a harness puts a part of its instruction text: its system prompt,
 * the first user message, a message of its own (Codex's user-role
 * instructions message), or a tool result (late-bound files).
 */
export type HarnessPlacement = 'system-prompt' | 'first-user-message' | 'separate-message' | 'tool-result'

/** Prose of the harness's own that a view marks instead of copying (`[Claude Code preamble: 59 tokens]`). */
export interface HarnessMark {
  /** The mark as it stands in `text`. */
  mark: string
  /** Tokens of the prose it stands for, with the tokenizer asked for (an estimate for other tokenizers). */
  tokens: number
}

/** One part of a harness view: a block of text the harness sends, and where it goes. */
export interface HarnessPart {
  placement: HarnessPlacement
  /** The role of the message that carries it. */
  role: 'system' | 'user' | 'tool'
  /** The instruction part as the harness emits it: its headings, separators, path lines and labels; marks where it has prose of its own. */
  text: string
  /**
   * Where each stretch of `text` came from: `text.slice(start, end)` is the
   * file's own text from `line`:`column` on (1-based, UTF-16 code units),
   * through every change the harness makes (comments left out, trimming, a
   * BOM removed, imports inlined, front matter dropped, a cut). What no span
   * covers is the harness's framing, marks, or generated text (pi's skills
   * and `<cwd>`, an omission notice).
   */
  sourceMap: SourceSpan[]
  /** The span compared byte for byte with a recording: `text` after the first mark and before the line breaks that precede the next (all of `text` when there is none). */
  compared: string
  /** Tokens of the part, marks counted as the prose they stand for; a withheld mark counts as nothing (its text was never read). */
  tokens: number
  marks: HarnessMark[]
  /** The files it carries, absolute, in order. */
  files: string[]
  /** False where the framing could not be read from the harness's published source (it follows its documentation instead). */
  exact: boolean
  /** Marks standing in `text` for what the harness would send here and sysprompt withholds (see `Withheld`). */
  withheld: WithheldMark[]
}

/**
 * Why sysprompt withholds text that the harness would send: a file on the
 * deny-list (by its name or by where a link leads), a link leading outside
 * the project, a name that a repository's own settings add for the user's
 * home directory.
 */
export type WithheldCode = 'denied' | 'outside-root' | 'repository-name'

/**
 * Text a harness would really send that sysprompt does not read (issue 30):
 * discovery lists it, `explain` says why, and the harness view shows a mark
 * in its place (`[withheld: links to .env, a denied file; Claude Code would
 * send it]`), so a view compared with a recording differs only there.
 */
export interface Withheld {
  /** The file the harness would send, absolute (the name as found, not where a link leads). */
  path: string
  code: WithheldCode
  /** Why, in words that follow the path: `links to .env, a denied file`. */
  reason: string
  /** `start` for a file loaded at session start, `on-demand` for one a harness loads late (sent for the working paths in `loadedFor`). */
  when: 'start' | 'on-demand'
  /** For an on-demand file: the working paths (`paths`) that would load it. */
  loadedFor?: string[]
}

/** A withheld file's mark in a harness view: the mark as it stands in the part's `text`. */
export interface WithheldMark {
  mark: string
  path: string
  reason: string
}

/** What a harness sends for its instruction files (SPEC §6 harness view). */
export interface HarnessView {
  mode: InstructionMode
  parts: HarnessPart[]
  /** What a reader of the view must know, in sentences (pi 1.x: the view is the untrusted one); absent when nothing. */
  notes?: string[]
}

/* The profile's switches live here, beside the info that carries them (`modes/profiles.ts` holds the data). */
/** What a version profile switches in a mode's rules. */
export interface ProfileBehaviour {
  /** Claude Code reads AGENTS.md (by `instructionFiles`; the default is the fallback when no CLAUDE.md exists). */
  agentsMd: boolean
  /** opencode loads the AGENTS.md files below cwd when the agent reads a file there. */
  lazyAgentsMd: boolean
  /** pi tries `AGENTS.override.md` first in every directory and in its agent directory. */
  piOverride?: boolean
  /** pi frames its prompt as named sections (`<addendum>`, `<project_context>`, `<cwd>`…) joined by a blank line. */
  piSections?: boolean
  /** pi reads the project's `.pi/SYSTEM.md` and `.pi/APPEND_SYSTEM.md` only in a trusted project. */
  piTrust?: boolean
  /** A linked git worktree nested in its main repository shadows the main root's context file of the same name. */
  piWorktree?: boolean
}

/** The version profile a harness mode ran with (SPEC §6 version profiles). */
export interface HarnessProfileInfo {
  mode: InstructionMode
  /** The version asked for, or the newest observed. */
  version: string
  /** Set when `version` is newer than the newest observed: the version whose behaviour models it. */
  modelledAs?: string
  /** The profile's range, in words (`before 2.1.277`, `2.1.277 and later`). */
  range: string
  /** What differs in that range. */
  changes: string
  /** Where the behaviour was observed. */
  observed: string
  behaviour: ProfileBehaviour
}

/** What `discoverInstructions` returns. */
export interface InstructionDiscovery {
  /** Loaded files in load order (`claude` mode: each import is an entry right after its importer). */
  files: InstructionFile[]
  /** What enters the prompt: each file under a `<!-- path -->` header line (see `render.ts`). */
  text: string
  /** Where each file's header and own text sit in `text`, in load order. */
  spans: InstructionSpan[]
  preload: PreloadClass
  diagnostics: InstructionDiagnostic[]
  /** Files the harness loads only when the agent works near them (harness modes; empty in `sysprompt`, `codex` and `pi` mode). */
  onDemand: OnDemandFile[]
  /** The on-demand files that the working `paths` load: late-bound, never in `text`. */
  lateBound: LateBoundFile[]
  /** Rules loaded only on request or by hand (convention modes; empty elsewhere). */
  onRequest: RequestedRule[]
  /** The text and placement that the mode's harness itself sends for these files. */
  harness: HarnessView
  /** The version profile that applied (null in `sysprompt` mode). */
  profile: HarnessProfileInfo | null
  /** What the harness would send that sysprompt withholds, in load order (each also a skip `explain` gives). */
  withheld: Withheld[]
}

/** Why a file was or was not loaded (stable codes, for tools and tests). */
export type InstructionReasonCode =
  | 'included'
  | 'imported'
  | 'truncated'
  | 'shadowed-by-override'
  | 'name-lost'
  | 'name-not-chosen'
  | 'fallback-unused'
  | 'conditional-rule'
  | 'outside-walk'
  | 'not-a-candidate'
  | 'missing'
  | 'empty'
  | 'duplicate'
  | 'over-budget'
  | 'outside-root'
  | 'outside-cwd'
  | 'unreadable'
  | 'denied'
  | 'repository-name'
  | 'import-cycle'
  | 'import-too-deep'
  | 'on-demand'
  | 'late-bound'
  | 'on-request'
  | 'manual-rule'
  | 'excluded-agent'
  | 'wrong-extension'
  | 'ignored'
  | 'untrusted'

/** What `explainInstructions` returns for one file. */
export interface InstructionExplanation {
  /** The file asked about, absolute. */
  file: string
  /** `on-demand`: loaded only when the agent works near it; `late-bound`: loaded for one of the working paths, with a tool result. */
  status: 'included' | 'truncated' | 'skipped' | 'on-demand' | 'late-bound'
  code: InstructionReasonCode
  /** One sentence a user can act on. */
  reason: string
  /** The version profile that applied, in words (`claude 2.1.200 (before 2.1.277: …)`); absent in `sysprompt` mode. */
  profile?: string
  /** For a rule file of a convention mode: when the tool applies it. */
  activation?: RuleActivation
  /** One entry per working path given: whether it loads the file, and how (which pattern or directory matched, or why none did). */
  paths?: { path: string; matched: boolean; how: string }[]
}
