import type { SettingValue } from './keys.js'

/* The settings a discovery runs with, as data: `load.ts` reads them, the context holds them. */

/** One setting in effect: its value and, in words, what set it (`project_doc_max_bytes in ~/.codex/config.toml`). */
export interface Setting {
  value: SettingValue
  source: string
  /** Whether a project file (untrusted) set it; the user's own files and flags are not. */
  project?: boolean
}

/** An opencode `instructions` entry with where it came from: project-level entries stay inside the project. */
export interface InstructionsEntry {
  pattern: string
  source: string
  /** Whether a project file (untrusted) listed it; home files and flags are the user's own. */
  project: boolean
}

/** The harness settings one discovery runs with (SPEC §6 harness configuration). */
export interface HarnessSettings {
  /** Settings by the harness's key name. */
  values: Map<string, Setting>
  /**
   * The settings as the user's own files and flags alone leave them, with no
   * project file's say: what may choose files in the user's home directories
   * (a repository's settings never do). Only keys that some file or flag set.
   */
  user: Map<string, Setting>
  /** Codex's home (`CODEX_HOME`, else `~/.codex`): where its global file and config live. */
  codexHome?: string
  /** opencode's `instructions`, merged over its config files in order (arrays concatenate). */
  instructions: InstructionsEntry[]
}
