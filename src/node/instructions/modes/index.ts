import type { InstructionMode } from '../discovery-options.js'
import type { ModeRules } from '../plan.js'
import { ampMode } from './amp.js'
import { claudeMode } from './claude.js'
import { clineMode } from './cline.js'
import { codexMode } from './codex.js'
import { continueMode } from './continue.js'
import { copilotMode } from './copilot.js'
import { cursorMode } from './cursor.js'
import { geminiMode } from './gemini.js'
import { junieMode } from './junie.js'
import { kiroMode } from './kiro.js'
import { opencodeMode } from './opencode.js'
import { piMode } from './pi.js'
import { syspromptMode } from './sysprompt.js'
import { windsurfMode } from './windsurf.js'
import { zedMode } from './zed.js'

/** The discovery rules of every mode, by name. */
export const MODES: Readonly<Record<InstructionMode, ModeRules>> = {
  sysprompt: syspromptMode,
  codex: codexMode,
  claude: claudeMode,
  gemini: geminiMode,
  pi: piMode,
  opencode: opencodeMode,
  // Convention modes (issue 16), from each tool's documentation.
  copilot: copilotMode,
  cursor: cursorMode,
  windsurf: windsurfMode,
  cline: clineMode,
  kiro: kiroMode,
  zed: zedMode,
  junie: junieMode,
  amp: ampMode,
  continue: continueMode,
}

export { INSTRUCTION_MODES } from '../discovery-options.js'
