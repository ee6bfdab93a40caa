import type { FileSystemAdapter } from '../adapters.js'

/**
 * Whose discovery rules to follow (SPEC §6): `sysprompt` is ours; each other
 * mode reproduces the files, order, imports and cap of one harness as
 * observed by running it (see each `modes/*.ts` for its rule list).
 */
export type InstructionMode = 'sysprompt' | 'codex' | 'claude' | 'gemini' | 'pi' | 'opencode'

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
   * Globs (relative to the root) taken back off the deny-list: imports never
   * read `.git/`, `.hg/`, `.svn/`, `.env`, `.env.*` (but `.env.example`,
   * `.env.sample`, `.env.template`), `*.pem`, `*.key`, `id_rsa*`,
   * `id_ed25519*`, `id_ecdsa*`, `id_dsa*`, `.npmrc`, `.netrc`, `.pgpass`
   * unless one of these matches.
   */
  allowFiles?: readonly string[]
  /** What to preload; default `full`. */
  preload?: PreloadRequest
  /**
   * Where walks towards the file-system root stop (inclusive), for tests and
   * sandboxes; defaults to the file-system root. The `.git` search stops here too.
   */
  fsRoot?: string
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

/** Something a user can fix or should know about, as data. */
export interface InstructionDiagnostic {
  code: InstructionDiagnosticCode
  severity: 'warning' | 'info'
  message: string
  /** The file concerned (absolute), when there is one. */
  path?: string
}

/** What `discoverInstructions` returns. */
export interface InstructionDiscovery {
  /** Loaded files in load order (`claude` mode: each import is an entry right after its importer). */
  files: InstructionFile[]
  /** What enters the prompt: each file under a `<!-- path -->` header line (see `render.ts`). */
  text: string
  preload: PreloadClass
  diagnostics: InstructionDiagnostic[]
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
  | 'import-cycle'
  | 'import-too-deep'

/** What `explainInstructions` returns for one file. */
export interface InstructionExplanation {
  /** The file asked about, absolute. */
  file: string
  status: 'included' | 'truncated' | 'skipped'
  code: InstructionReasonCode
  /** One sentence a user can act on. */
  reason: string
}
