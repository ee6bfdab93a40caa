import type { ModeRules } from '../plan.js'
import type { InstructionMode } from '../types.js'
import { claudeMode } from './claude.js'
import { codexMode } from './codex.js'
import { geminiMode } from './gemini.js'
import { opencodeMode } from './opencode.js'
import { piMode } from './pi.js'
import { syspromptMode } from './sysprompt.js'

/** The discovery rules of every mode, by name. */
export const MODES: Readonly<Record<InstructionMode, ModeRules>> = {
  sysprompt: syspromptMode,
  codex: codexMode,
  claude: claudeMode,
  gemini: geminiMode,
  pi: piMode,
  opencode: opencodeMode,
}

export { INSTRUCTION_MODES } from '../types.js'
