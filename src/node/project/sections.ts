import type { FragmentManifestEntry } from '../../compile/index.js'
import { type Fragment, layeredPreset, sessionPreset } from '../../presets/index.js'
import type { PromptRegistry, Stability } from '../../registry/index.js'
import type { SectionOrigin } from './failure.js'
import { shown } from './paths.js'
import type { ProjectPrompt } from './project-prompt.js'
import { TEMPLATE_SECTION } from './template-source.js'

/** Where rules land by default: after the template and the preset sections, before the layered preset's tuning. */
export const RULE_ORDER = 300
/** The section that gives the layered preset the instruction files (it leaves context files to the harness). */
export const LAYERED_INSTRUCTIONS_SECTION = 'project:instructions'
const LAYERED_INSTRUCTIONS_ORDER = 230

const VOLATILITY: Record<Stability, number> = { static: 0, session: 1, turn: 2 }

function registerBody(project: ProjectPrompt, registry: PromptRegistry): void {
  const { options, overrides, tools, discovery } = project
  const model = options.model === undefined ? {} : { model: options.model }
  if (project.kind === 'layered') {
    layeredPreset(registry, {
      tools: tools.map((t) => ({ name: t.name })),
      ...model,
      fragments: overrides.list,
    })
    registry.section({
      name: LAYERED_INSTRUCTIONS_SECTION,
      order: LAYERED_INSTRUCTIONS_ORDER,
      text: '[project:instructions]',
      dialect: 'bracket',
      stability: 'session',
    })
  } else if (project.kind === 'session') {
    sessionPreset(registry, {
      autonomy: options.autonomy,
      ...(options.providerGiven ? { provider: options.provider } : {}),
      ...model,
      toolNames: tools.map((t) => t.name),
      ...(discovery.files.length === 0
        ? {}
        : { projectContext: discovery.text, projectPreload: discovery.preload }),
      fragments: overrides.list,
    })
  }
}

/**
 * Registers the prompt's sections: the template as section `template` (or
 * the layered or session preset, with the instruction files), then each
 * rule that applies as `rule:<id>`: its front matter's order (default
 * {@link RULE_ORDER}), dialect (default `bracket`, like templates) and
 * priority, and a stability of at least `session` (whether a rule applies
 * depends on the session's working paths). Records where each section's
 * text comes from in `project.origins` and `project.sources`, and returns
 * the manifest entries of the fragments used.
 */
export function registerSections(project: ProjectPrompt, registry: PromptRegistry): FragmentManifestEntry[] {
  const manifest: FragmentManifestEntry[] = []
  const record = (name: string, fragment: Fragment, origin: SectionOrigin) => {
    project.origins.set(name, origin)
    project.sources[name] = shown(origin.file, project.root)
    manifest.push({
      id: fragment.id,
      source: shown(fragment.source, project.root),
      contentHash: fragment.contentHash,
      dynamic: fragment.dynamic,
    })
  }
  const { template } = project
  if (template !== undefined) {
    registry.section({
      name: TEMPLATE_SECTION,
      order: template.order,
      text: template.body,
      dialect: template.dialect,
      stability: template.stability,
      ...(template.priority === undefined ? {} : { priority: template.priority }),
    })
    record(TEMPLATE_SECTION, template.fragment, template)
  } else registerBody(project, registry)
  for (const { rule, decision } of project.judged) {
    if (!decision.applies) continue
    const name = `rule:${rule.id}`
    registry.section({
      name,
      order: rule.order ?? RULE_ORDER,
      text: rule.body,
      dialect: rule.dialect ?? 'bracket',
      stability: VOLATILITY[rule.stability] >= VOLATILITY.session ? rule.stability : 'session',
      ...(rule.priority === undefined ? {} : { priority: rule.priority }),
    })
    record(name, rule, { file: rule.source, builtin: false, bodyLine: rule.bodyLine })
  }
  return manifest
}
