import type { TokenCountCache, Tokenizer, TokenizerName } from '../../compile/index.js'
import type { FileSystemAdapter } from '../adapters.js'

// What discovery is asked: the modes (whose rules to follow), when a rule
// applies, and the options of `discoverInstructions` and `explainInstructions`.
// What it returns is in `discovery-results.ts`.
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

/** Options of `discoverInstructions` and `explainInstructions`. */
export interface DiscoverInstructionsOptions {
  /** The working directory the harness starts in. */
  cwd: string
  /** The project root; defaults to the nearest ancestor of `cwd` holding `.git` (a file or a directory), else `cwd`. */
  root?: string
  /**
   * Whether harnesses that stop at the git root stop at `root` (default
   * true: a root the user chose is the boundary). False when `root` is only
   * where the project's files are confined (the CLI's computed root): the
   * walks then stop where each harness stops by itself, at the git root, or
   * outside git where that harness goes (opencode to the file-system root).
   */
  rootIsBoundary?: boolean
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
