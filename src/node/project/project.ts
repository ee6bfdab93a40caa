import { type CachePlan, type CompiledPrompt, compile, planCache } from '../../compile/index.js'
import type { FragmentError } from '../../presets/index.js'
import { createPromptRegistry, type PromptAssembly, type ToolSchema } from '../../registry/index.js'
import { keyNamespace } from '../../template/index.js'
import {
  discoverInstructions,
  fragmentDirs,
  type GitDiagnostic,
  type InstructionDiscovery,
  type LoadedFragments,
  loadFragments,
  nodeHash,
} from '../index.js'
import { type BuildFailure, failureOf, frontMatterFailure, type SectionOrigin } from './failure.js'
import type { ProjectOptions } from './options.js'
import { DEFAULT_MAX_FILE_BYTES } from './read-file.js'
import { type Catalog, catalogOf, cliResolvers } from './resolvers.js'
import { projectRoot } from './root.js'
import { type JudgedRule, judgeRules, loadRules } from './rules.js'
import { registerSections } from './sections.js'
import { chooseTemplate, type TemplateSource } from './template-source.js'
import { readToolsFile } from './tools-file.js'

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
  /** Why resolved values are absent where that is worth telling (git failed, timed out, refused the repository); one per cause. */
  resolverDiagnostics: GitDiagnostic[]
  assembly?: PromptAssembly
  compiled?: CompiledPrompt
  failure?: BuildFailure
}

/**
 * Builds the prompt this project would get (SPEC §9): the template
 * (`--template`, else `.sysprompt/template.md`, else the built-in project
 * template) or a preset (`--preset`), the project rules that apply as
 * `rule:<id>` sections, the instruction files as `--mode` finds them, the
 * built-in resolvers and `--set` values; then compiles it. Problems in the
 * project's files come back as data (`failure`, `templateErrors`, load
 * errors) so that `lint` can report all of them; a file named on the
 * command line that cannot be used throws.
 */
export async function buildProject(
  options: ProjectOptions,
  env: Record<string, string | undefined>,
): Promise<ProjectPrompt> {
  const { cwd } = options
  const root = await projectRoot(cwd, options.root)
  const [overrides, rules, discovery] = await Promise.all([
    loadFragments(fragmentDirs({ projectRoot: root, builtinDir: null, env })),
    loadRules(root),
    discoverInstructions({ cwd, root, mode: options.mode, allowFiles: options.allowFiles ?? [] }),
  ])
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const allowFiles = options.allowFiles ?? []
  const chosen = await chooseTemplate({ ...options, maxFileBytes }, root, overrides)
  const tools = options.tools === undefined ? [] : await readToolsFile(options.tools, maxFileBytes)
  const resolverDiagnostics: GitDiagnostic[] = []
  const resolvers = cliResolvers({
    onDiagnostic: (d) => {
      if (!resolverDiagnostics.some((seen) => seen.message === d.message)) resolverDiagnostics.push(d)
    },
    root,
    cwd,
    envAllowlist: options.env,
    allowFiles,
    pinned: new Map([...options.set].filter(([k]) => keyNamespace(k) !== undefined)),
    discovery,
  })
  const project: ProjectPrompt = {
    options,
    root,
    cwd,
    kind: options.preset === 'layered' || options.preset === 'session' ? options.preset : 'template',
    ...(chosen.template === undefined ? {} : { template: chosen.template }),
    templateErrors: chosen.errors,
    rules,
    judged: judgeRules(rules.list, options.paths, root, options.model),
    overrides,
    discovery,
    catalog: catalogOf(resolvers),
    tools,
    origins: new Map(),
    sources: {},
    resolverDiagnostics,
  }
  const frontMatter = frontMatterFailure(chosen.errors, root)
  if (frontMatter !== undefined) {
    project.failure = frontMatter
    return project
  }
  const registry = createPromptRegistry()
  for (const resolver of resolvers) registry.resolver(resolver)
  for (const [key, value] of options.set) {
    if (keyNamespace(key) === undefined)
      registry.variable(key, () => value, { description: 'Set with --set' })
  }
  if (tools.length > 0) registry.tools(() => ({ schemas: tools }))
  try {
    const manifest = registerSections(project, registry)
    project.assembly = await registry.assemble({
      cwd,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.providerGiven ? { provider: options.provider } : {}),
    })
    project.compiled = compile(project.assembly, { tokenizer: options.tokenizer, hash: nodeHash, manifest })
  } catch (error) {
    project.failure = failureOf(error, project.origins, root)
  }
  return project
}

/** The cache plan for the chosen provider and model. */
export function cachePlan(project: ProjectPrompt, compiled: CompiledPrompt): CachePlan {
  return planCache(compiled, {
    provider: project.options.provider,
    ...(project.options.model === undefined ? {} : { model: project.options.model }),
  })
}
