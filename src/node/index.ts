/**
 * `sysprompt/node`: what makes sysprompt useful on a real machine (SPEC §3,
 * §6): the built-in variable resolvers on injected adapters, fragments on
 * disk, project rules and instruction-file discovery.
 */
import './front-matter-yaml.js'
import { registerNodeTokenizers } from './tokenizer-loaders.js'

// Importing the Node layer makes o200k and cl100k count without a
// `loadTokenizer` call: each loads the first time a count needs it (and
// front matter parses without `loadFrontMatterYaml`: `yaml` loads the first
// time a file has front matter).
registerNodeTokenizers()

export {
  type Adapters,
  type ClockAdapter,
  type FileStat,
  type FileSystemAdapter,
  GIT_SAFE_CONFIG,
  type GitAdapter,
  type GitResult,
  type NodeGitOptions,
  nodeAdapters,
  nodeGitAdapter,
  type OsAdapter,
} from './adapters.js'
export {
  DEFAULT_COUNT_CACHE_BYTES,
  type DiskCountCache,
  type DiskCountCacheOptions,
  diskCountCache,
  userCacheDir,
} from './count-cache.js'
export { DEFAULT_DENY_LIST, type DenyList, denyList } from './deny-list.js'
export {
  BUILTIN_FRAGMENT_DIR,
  type FragmentDirsOptions,
  type FragmentReload,
  type FragmentTable,
  type FragmentWatcher,
  fragmentDirs,
  type LoadedFragments,
  type LoadFragmentsOptions,
  loadFragments,
  type WatchFragmentsOptions,
  watchFragments,
} from './fragments.js'
export * from './instructions/index.js'
export { nodeHash } from './node-hash.js'
export {
  DEFAULT_FILE_MAX_BYTES,
  DEFAULT_GIT_TIMEOUT_MS,
  type GitDiagnostic,
  type NodeResolversOptions,
  nodeResolvers,
  ResolverOptionError,
} from './node-resolvers.js'
export { findProjectRoot, type ProjectRootOptions } from './project-root.js'
export { explainRule, type RuleVerdict, type SelectRulesOptions, selectRules } from './rules.js'
export {
  type CheckedReadOptions,
  formatBytes,
  isInside,
  type ReadFailure,
  type ReadOptions,
  type ReadOutcome,
  readCheckedFile,
  readConfinedFile,
  readFailureText,
} from './safe-read.js'
export { type SafeWriteCode, SafeWriteError, type SafeWriteOptions, writeFileSafely } from './safe-write.js'
