/**
 * Instruction-file discovery (SPEC §6): AGENTS.md and friends, found as
 * sysprompt does or as a named harness does, with imports, a visible
 * byte budget, preload classes and explanations.
 */
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_EXPANDED_BYTES,
  DEFAULT_MAX_EXPANDED_FILES,
  groupDigits,
  omissionNotice,
} from './budget.js'
export { discoverInstructions } from './discover.js'
export type { DiscoverInstructionsOptions, InstructionMode, PreloadRequest } from './discovery-options.js'
export type {
  HarnessMark,
  HarnessPart,
  HarnessPlacement,
  HarnessView,
  InstructionDiagnostic,
  InstructionDiagnosticCode,
  InstructionDiscovery,
  InstructionExplanation,
  InstructionFile,
  InstructionReasonCode,
  LateBoundFile,
  OnDemandFile,
  OnDemandTrigger,
  PreloadClass,
} from './discovery-results.js'
export { explainInstructions } from './explain.js'
export {
  HARNESS_KEYS,
  type HarnessKey,
  type HarnessOverride,
  parseHarnessOverride,
} from './harness-config/keys.js'
export { findImportLines, type ImportLine, MAX_IMPORT_DEPTH } from './imports.js'
export { INSTRUCTION_MODES } from './modes/index.js'
export { DEFAULT_NAMES, OVERRIDE_NAME } from './modes/sysprompt.js'
export { ON_DEMAND_DIR_LIMIT } from './on-demand.js'
export { READ_LIMIT } from './read.js'
export { header, type InstructionSpan } from './render.js'
export { synopsis } from './synopsis.js'
