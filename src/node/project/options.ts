import type { CacheProvider, TokenCountCache, TokenizerName } from '../../compile/index.js'
import type { Autonomy } from '../../presets/index.js'
import type { Dialect } from '../../template/index.js'
import type { InstructionMode } from '../instructions/index.js'

/** The presets a project prompt can be built with instead of a template: the default template, or one of the preset builders of SPEC §7. */
export const PRESETS = ['default', 'layered', 'session'] as const
/** A preset name (`--preset` on the command line). */
export type PresetName = (typeof PRESETS)[number]

/**
 * What {@link buildProject} builds from, checked by the caller (the command
 * line reads it from its options, the server from a request): paths are
 * absolute, the directories and files exist.
 */
export interface ProjectOptions {
  /** The agent's working directory: absolute, real, an existing directory. */
  cwd: string
  /** The project root, absolute and real, when given (else found from `cwd`). */
  root: string | undefined
  mode: InstructionMode
  /** Working paths (absolute) that select rules. */
  paths: string[]
  /** The harness version whose profile `mode` follows (`--mode claude@2.1.200`); default the newest observed. */
  harnessVersion?: string
  /** Settings of the mode's harness as `KEY=VALUE` (`--harness-config`), over its config files; checked by the caller. */
  harnessConfig?: string[]
  model: string | undefined
  preset: PresetName | undefined
  /** A template file, absolute, an existing file. */
  template: string | undefined
  /**
   * Template text in fragment format, used instead of the project's
   * `.sysprompt/template.md` (the server's preview of an edit); positions
   * are reported in that file. `dialect` applies when the front matter names none.
   */
  templateText?: { text: string; dialect?: Dialect }
  tokenizer: TokenizerName
  provider: CacheProvider
  /** Whether the provider was chosen (the session preset words its cache advice for it only then). */
  providerGiven: boolean
  autonomy: Autonomy
  /** Pinned variable values, in the order given (a later one wins). */
  set: Map<string, string>
  /** The environment variables `env:NAME` may read. */
  env: string[]
  /** A JSON file of tool schemas, absolute, an existing file. */
  tools: string | undefined
  /** Tokens the harness sends before this prompt in the cached prefix (its base prompt, tools), for cache verdicts; default 0. */
  baseTokens?: number
  /** Where token counts persist between runs (the command line passes `diskCountCache`; none by default). */
  countCache?: TokenCountCache
  /** Template, lock and tools files larger than this are refused; default 1 MiB (`DEFAULT_MAX_FILE_BYTES`). */
  maxFileBytes?: number
  /** Globs (relative to the root) taken back off the deny-list for `file:`, instruction files and imports (`DEFAULT_DENY_LIST`). */
  allowFiles?: string[]
  /**
   * The expansion budget: distinct files that instruction discovery (per
   * mode) and `file:` values (per render) may bring in; default 200
   * (`DEFAULT_MAX_EXPANDED_FILES`). Past it the rest is withheld, with a mark
   * and a diagnostic.
   */
  maxExpandedFiles?: number
  /** Bytes of expanded text in the same budget (a file placed twice counts twice); default 4 MiB (`DEFAULT_MAX_EXPANDED_BYTES`). */
  maxExpandedBytes?: number
}
