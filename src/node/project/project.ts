import {
  type CachePlan,
  type CachePlanOptions,
  type CacheProvider,
  type CompiledPrompt,
  compile,
  planCache,
} from '../../compile/index.js'
import { createPromptRegistry } from '../../registry/index.js'
import { keyNamespace } from '../../template/index.js'
import { discoverInstructions, fragmentDirs, loadFragments, nodeHash } from '../index.js'
import { failureOf, frontMatterFailure } from './failure.js'
import type { ProjectOptions } from './options.js'
import type { ProjectPrompt } from './project-prompt.js'
import { withIncludedFiles } from './provenance.js'
import { DEFAULT_MAX_FILE_BYTES } from './read-file.js'
import { catalogOf, cliResolvers, type ResolverDiagnostic } from './resolvers.js'
import { projectRoot } from './root.js'
import { judgeRules, loadRules } from './rules.js'
import { registerSections } from './sections.js'
import { chooseTemplate } from './template-source.js'
import { readToolsFile } from './tools-file.js'

/** Re-exported: the CLI and the server take the type from here with `buildProject`. */
export type { ProjectPrompt }

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
    discoverInstructions({
      cwd,
      root,
      // The walks stop where each harness stops by itself unless the user chose the root (--root).
      rootIsBoundary: options.root !== undefined,
      mode: options.mode,
      paths: options.paths,
      harnessConfig: options.harnessConfig ?? [],
      ...(options.harnessVersion === undefined ? {} : { harnessVersion: options.harnessVersion }),
      env,
      tokenizer: options.tokenizer,
      allowFiles: options.allowFiles ?? [],
      ...(options.countCache === undefined ? {} : { countCache: options.countCache }),
      ...expansionLimits(options),
    }),
  ])
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const allowFiles = options.allowFiles ?? []
  const chosen = await chooseTemplate({ ...options, maxFileBytes }, root, overrides)
  const tools = options.tools === undefined ? [] : await readToolsFile(options.tools, maxFileBytes)
  const resolverDiagnostics: ResolverDiagnostic[] = []
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
    fileExpansion: {
      ...(options.maxExpandedFiles === undefined ? {} : { maxFiles: options.maxExpandedFiles }),
      ...(options.maxExpandedBytes === undefined ? {} : { maxBytes: options.maxExpandedBytes }),
      // Read when values resolve: every text that may place a `file:` key, each file once
      // (the project's template is also one of the override fragments).
      texts: () => {
        const bySource = new Map<string, string>()
        if (chosen.template !== undefined) bySource.set(chosen.template.fragment.source, chosen.template.body)
        for (const fragment of [...rules.list, ...overrides.list])
          if (!bySource.has(fragment.source)) bySource.set(fragment.source, fragment.body)
        return bySource.values()
      },
    },
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
  const { countCache } = options
  if (countCache !== undefined) project.countCache = countCache
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
    project.compiled = withIncludedFiles(
      compile(project.assembly, {
        tokenizer: options.tokenizer,
        hash: nodeHash,
        manifest,
        ...(countCache === undefined ? {} : { countCache }),
      }),
      discovery,
      root,
      cwd,
    )
  } catch (error) {
    project.failure = failureOf(error, project.origins, root)
  }
  return project
}

/** The expansion budget's limits the options set, in the names discovery takes them by. */
function expansionLimits(options: ProjectOptions): { maxExpandedFiles?: number; maxExpandedBytes?: number } {
  return {
    ...(options.maxExpandedFiles === undefined ? {} : { maxExpandedFiles: options.maxExpandedFiles }),
    ...(options.maxExpandedBytes === undefined ? {} : { maxExpandedBytes: options.maxExpandedBytes }),
  }
}

/** The provider each harness mode talks to, for the cache plan when `--provider` is not given. */
const MODE_PROVIDER: Partial<Record<ProjectOptions['mode'], CacheProvider>> = {
  codex: 'openai',
  claude: 'anthropic',
  gemini: 'gemini',
}

/** The cache plan's options: the provider chosen (else the mode's, else Anthropic), the model, the harness share. */
export function cacheOptions(options: ProjectOptions): CachePlanOptions {
  return {
    provider: options.providerGiven ? options.provider : (MODE_PROVIDER[options.mode] ?? options.provider),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.baseTokens === undefined ? {} : { baseTokens: options.baseTokens }),
    // Without a provider or a model named, the minimum is a guess: no finding rests on it.
    minimumWarnings: options.providerGiven || options.model !== undefined,
  }
}

/** The cache plan for the chosen provider and model (SPEC §5, one verdict: `cacheVerdict`). */
export function cachePlan(project: ProjectPrompt, compiled: CompiledPrompt): CachePlan {
  return planCache(compiled, cacheOptions(project.options))
}
