import type { CompiledPrompt, TokenCountCache } from '../../compile/index.js'
import type { FragmentError } from '../../presets/index.js'
import type { PromptAssembly, ToolSchema } from '../../registry/index.js'
import type { InstructionDiscovery, LoadedFragments } from '../index.js'
import type { BuildFailure, SectionOrigin } from './failure.js'
import type { ProjectOptions } from './options.js'
import type { Catalog, ResolverDiagnostic } from './resolvers.js'
import type { JudgedRule } from './rules.js'
import type { TemplateSource } from './template-source.js'

// Its own file so that the steps of the pipeline (`sections.ts`…) can take the
// project without importing `project.ts`, which imports them.
/** "The prompt this project would get", with every fact the commands report on. */
export interface ProjectPrompt {
  options: ProjectOptions
  root: string
  cwd: string
  /** `template` (a template file, the project template or `--preset default`), `layered` or `session`. */
  kind: 'template' | 'layered' | 'session'
  template?: TemplateSource
  /** Front-matter problems of the template file (then there is no prompt). */
  templateErrors: FragmentError[]
  rules: LoadedFragments
  judged: JudgedRule[]
  /** Fragments of the user and project layers (preset overrides), with their load errors. */
  overrides: LoadedFragments
  discovery: InstructionDiscovery
  catalog: Catalog
  tools: ToolSchema[]
  /** Section name → where its text is written. */
  origins: Map<string, SectionOrigin>
  /** Section name → source for the lock (paths relative to the root). */
  sources: Record<string, string>
  /** Why resolved values are absent or withheld where that is worth telling (git failed, timed out, refused the repository; `file:` past the expansion budget); one per cause. */
  resolverDiagnostics: ResolverDiagnostic[]
  assembly?: PromptAssembly
  compiled?: CompiledPrompt
  failure?: BuildFailure
  /** Where token counts persist between runs (none with `--no-cache`). */
  countCache?: TokenCountCache
}
