export {
  type Fragment,
  type FragmentError,
  type FragmentErrorCode,
  type FrontMatterYaml,
  formatFragmentError,
  fragmentIdFromPath,
  loadFrontMatterYaml,
  type ParseFragmentOptions,
  type ParseFragmentResult,
  parseFragment,
  registerFrontMatterYaml,
} from '../shared/fragment.js'
export { AUTONOMY_LEVELS, type Autonomy } from './autonomy.js'
export { DEFAULT_TEMPLATE, PROJECT_TEMPLATE } from './default-template.js'
export { PresetError, type PresetErrorCode } from './errors.js'
export {
  LAYERED_CORE_SECTION,
  LAYERED_SECTIONS,
  type LayeredPresetOptions,
  layeredPreset,
  type Surface,
} from './layered.js'
export {
  type ProjectPreload,
  SESSION_EXTRA_PREFIX,
  SESSION_SECTIONS,
  type SessionPresetOptions,
  sessionPreset,
} from './session.js'
export type { ToolPromptHint } from './tool-hints.js'
export {
  type PresetTool,
  TOOL_CATEGORIES,
  TOOL_CATEGORY_LABELS,
  type ToolCategory,
} from './tool-reference.js'
export { builtinPresetFragments } from './words.js'
export {
  compileWorkerPrompt,
  type PermissionRouting,
  WORKER_SECTIONS,
  type WorkerPersona,
  type WorkerPromptOptions,
} from './worker.js'
