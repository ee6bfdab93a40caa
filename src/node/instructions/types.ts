import type { TokenCountCache, Tokenizer, TokenizerName } from '../../compile/index.js'
import type { FileSystemAdapter } from '../adapters.js'
import type { GlobSyntax } from './globs.js'
import type { InstructionSpan } from './render.js'

/**
 * Whose discovery rules to follow (SPEC §6): `sysprompt` is ours; each other
 * mode reproduces the files, order, imports and cap of one harness as
 * observed by running it (see each `modes/*.ts` for its rule list).
 */
export type InstructionMode = 'sysprompt' | 'codex' | 'claude' | 'gemini' | 'pi' | 'opencode' | ConventionMode

/**
 * The modes reproduced from a tool's documentation rather than from
 * recordings (issue 16): each reads its own rule files, whose activation
 * is data (`RuleActivation`).
 */
export type ConventionMode =
  | 'copilot'
  | 'cursor'
  | 'windsurf'
  | 'cline'
  | 'kiro'
  | 'zed'
  | 'junie'
  | 'amp'
  | 'continue'

/** The convention modes, in a stable order. */
export const CONVENTION_MODES: readonly ConventionMode[] = [
  'copilot',
  'cursor',
  'windsurf',
  'cline',
  'kiro',
  'zed',
  'junie',
  'amp',
  'continue',
]

/**
 * When a tool applies a rule file (SPEC §6): `always` (at session start),
 * `glob` (when the agent works on a file its globs match: on demand,
 * late-bound for `--path`), `requested` (the model decides from its
 * description), `manual` (only when the user names it).
 */
export type RuleActivation = 'always' | 'glob' | 'requested' | 'manual'

/** The mode names, in a stable order (for CLIs and validation). */
export const INSTRUCTION_MODES: readonly InstructionMode[] = [
  'sysprompt',
  'codex',
  'claude',
  'gemini',
  'pi',
  'opencode',
  ...CONVENTION_MODES,
]

/** What the caller asks to preload: the files themselves (`full`), a synopsis of each, or nothing. */
export type PreloadRequest = 'full' | 'synopsis' | 'none'

/**
 * How the instruction text entered the prompt (seed 003): `full` when every
 * file fit, `truncated` when a byte cap cut something, `synopsis` when a
 * synopsis was asked for, `none` when preloading was turned off.
 */
export type PreloadClass = 'full' | 'truncated' | 'synopsis' | 'none'

/** Options of `discoverInstructions` and `explainInstructions`. */
export interface DiscoverInstructionsOptions {
  /** The working directory the harness starts in. */
  cwd: string
  /** The project root; defaults to the nearest ancestor of `cwd` holding `.git` (a file or a directory), else `cwd`. */
  root?: string
  /** Whose rules to follow; defaults to `sysprompt`. */
  mode?: InstructionMode
  /** Where each mode finds its global files; defaults to the user's home directory. */
  home?: string
  /**
   * File names read in each directory. `sysprompt`: the candidates in order,
   * one file per directory (default `['AGENTS.md']`); `codex`: fallback names
   * after `AGENTS.override.md` and `AGENTS.md`; `gemini`: names read besides
   * `GEMINI.md` (its `context.fileName`). The other modes have fixed names.
   */
  names?: readonly string[]
  /** Absolute paths used instead of the mode's own global files, in this order. */
  globalFiles?: readonly string[]
  /**
   * Byte cap. `sysprompt`: the nearest-first budget (default 32 KiB); `codex`:
   * its `project_doc_max_bytes` (default 32 KiB, 0 turns project files off);
   * the other modes have no cap unless one is given, which then works as in
   * `sysprompt`.
   */
  maxBytes?: number
  /** Whether `@path` imports are followed in the modes that have them; default true. */
  imports?: boolean
  /**
   * The expansion budget of one mode's discovery: the instruction files it
   * loads, their imports (each time one is inlined) and rule bodies count
   * against at most `maxExpandedFiles` distinct files and `maxExpandedBytes`
   * bytes of expanded text; past it the rest is withheld, each place marked
   * (`[withheld: … past the expansion budget …]`), with one
   * `expansion-budget` diagnostic naming the first file left out. Defaults
   * 200 files and 4 MiB (`DEFAULT_MAX_EXPANDED_FILES`,
   * `DEFAULT_MAX_EXPANDED_BYTES`); files loaded on demand are counted apart.
   */
  maxExpandedFiles?: number
  /** See `maxExpandedFiles`. */
  maxExpandedBytes?: number
  /**
   * Globs (relative to the root) taken back off the deny-list: no
   * instruction file, import or file a harness setting names is read from
   * `.git/`, `.hg/`, `.svn/`, `.env`, `.env.*` (but `.env.example`,
   * `.env.sample`, `.env.template`), `*.pem`, `*.key`, `id_rsa*`,
   * `id_ed25519*`, `id_ecdsa*`, `id_dsa*`, `.npmrc`, `.netrc`, `.pgpass`,
   * `oauth_creds.json`, `.credentials.json`, `credentials.json` or
   * `auth.json`, by its name or by the file a link resolves to, unless one
   * of these matches.
   */
  allowFiles?: readonly string[]
  /** What to preload; default `full`. */
  preload?: PreloadRequest
  /**
   * Working paths (absolute, or relative to `cwd`): the files the agent
   * reads or edits. Files the harness loads on demand for them become
   * `lateBound` entries; without paths they are only listed in `onDemand`.
   */
  paths?: readonly string[]
  /** Counts the tokens of on-demand files and harness views; default `o200k`. */
  tokenizer?: Tokenizer | TokenizerName
  /** Where those counts persist between runs (the command line passes its disk cache), so a warm run loads no encoding. */
  countCache?: TokenCountCache
  /**
   * Where walks towards the file-system root stop (inclusive), for tests and
   * sandboxes; defaults to the file-system root. The `.git` search stops here too.
   */
  fsRoot?: string
  /**
   * Settings of the mode's harness as `KEY=VALUE`, under the harness's own
   * key names (`project_doc_max_bytes=65536`, `context.fileName=AGENTS.md`);
   * they override what its configuration files say. An unknown key or a bad
   * value throws a `TypeError` naming the keys the mode accepts (see
   * `parseHarnessOverride` to check them first).
   */
  harnessConfig?: readonly string[]
  /**
   * The version of the mode's harness to reproduce (`2.1.200`); default the
   * newest observed. Where a harness changed behaviour, its version profile
   * decides (see `modes/profiles.ts`); a malformed or unobserved version throws
   * a `TypeError` listing the known profiles.
   */
  harnessVersion?: string
  /** Whether the harness's configuration files (home and project) are read; default true. */
  harnessConfigFiles?: boolean
  /** Environment variables the harness consults (`CODEX_HOME`); none by default, so a test never sees the caller's. */
  env?: Readonly<Record<string, string | undefined>>
  /** File access; defaults to the real file system. */
  fs?: FileSystemAdapter
}

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

/** The version profile a harness mode ran with (SPEC §6 version profiles). */
export interface HarnessProfileInfo {
  mode: InstructionMode
  /** The version asked for, or the newest observed. */
  version: string
  /** The profile's range, in words (`before 2.1.277`, `2.1.277 and later`). */
  range: string
  /** What differs in that range. */
  changes: string
  /** Where the behaviour was observed. */
  observed: string
  behaviour: {
    agentsMd: boolean
    lazyAgentsMd: boolean
    /** pi 1.x (see `modes/profiles.ts`): absent is false. */
    piOverride?: boolean
    piSections?: boolean
    piTrust?: boolean
    piWorktree?: boolean
  }
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
