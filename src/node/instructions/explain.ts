import { basename, dirname, join, resolve } from 'node:path'
import type { DiscoveryContext } from './context.js'
import { runDiscovery } from './discover.js'
import type { DiscoverInstructionsOptions } from './discovery-options.js'
import type { InstructionExplanation } from './discovery-results.js'
import type { LeftOut } from './ignore-files.js'
import { fires } from './on-demand.js'

/**
 * Says why one file was included, truncated or skipped by
 * `discoverInstructions` with the same options (SPEC §6): shadowed by an
 * override, another name won in its directory, outside the walk, over
 * budget, an import cycle, outside the root, and so on. `file` may be
 * absolute or relative to `cwd`; the answer carries a stable `code` and a
 * sentence a user can act on.
 */
export async function explainInstructions(
  options: DiscoverInstructionsOptions & { file: string },
): Promise<InstructionExplanation> {
  const { context } = await runDiscovery(options)
  const explained = await explain(context, options)
  const paths = options.paths ?? []
  const answer =
    paths.length === 0
      ? explained
      : {
          ...explained,
          paths: pathsFor(
            context,
            explained,
            paths.map((p) => resolve(options.cwd, p)),
          ),
        }
  const profile = context.profile
  return profile === null
    ? answer
    : { ...answer, profile: `${profile.mode} ${profile.version} (${profile.range}: ${profile.changes})` }
}

async function explain(
  context: DiscoveryContext,
  options: DiscoverInstructionsOptions & { file: string },
): Promise<InstructionExplanation> {
  const asked = resolve(options.cwd, options.file)
  const dir = await context.fs.realpath(dirname(asked)).catch(() => dirname(asked))
  const file = join(dir, basename(asked))
  const decided = context.decisions.get(file) ?? context.decisions.get(asked)
  const activation = context.activations.get(file) ?? context.activations.get(asked)
  if (decided !== undefined) return { file, ...decided, ...(activation && { activation }) }
  const shown = context.display(file)
  if (!context.candidates.includes(basename(file))) {
    const rules = RULE_PLACES[context.mode]
    // A file shaped like a rule of this convention (its extension, under a dot-directory) but not where the tool reads rules.
    const place =
      rules?.ext.some((e) => shown.endsWith(e)) && /(^|\/)\.[^/]+\//.test(shown) ? rules : undefined
    return {
      file,
      status: 'skipped',
      code: 'not-a-candidate',
      reason: place
        ? `${place.tool} reads ${place.where}, and only ${context.candidates.join(', ')} besides; ${shown} is ${misplaced(shown, place)}, so ${place.tool} never loads it`
        : `${context.mode} mode reads only ${context.candidates.join(', ')} in each directory, and no loaded file imports ${shown}`,
    }
  }
  const left = leftOutAbove(context, dir)
  if (left !== undefined) {
    return {
      file,
      status: 'skipped',
      code: left.kind === 'ignored' ? 'ignored' : 'outside-walk',
      reason: `${context.mode} mode looks for nested files as the harness does, and ${context.display(left.dir)} is left out: ${left.words}`,
    }
  }
  if (!context.walk.dirs.includes(dir)) {
    return {
      file,
      status: 'skipped',
      code: 'outside-walk',
      reason: `${context.mode} mode reads ${context.walk.description}; ${dir} is not one of them`,
    }
  }
  return { file, status: 'skipped', code: 'missing', reason: `there is no file ${shown}` }
}

/** The nearest directory at or above `dir` that a nested walk left out, with why. */
function leftOutAbove(context: DiscoveryContext, dir: string): (LeftOut & { dir: string }) | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const left = context.leftOut.get(d)
    if (left !== undefined) return { ...left, dir: d }
    if (d === context.root || dirname(d) === d) return undefined
  }
}

/** Where each convention's rules live, as its tool reads them (the mode files cite the documentation). */
interface RulePlace {
  tool: string
  dir: string
  ext: readonly string[]
  where: string
}

const RULE_PLACES: Partial<Record<DiscoveryContext['mode'], RulePlace>> = {
  cursor: {
    tool: 'Cursor',
    dir: '.cursor/rules',
    ext: ['.mdc'],
    where: 'project rules only as .mdc files inside a .cursor/rules/ directory',
  },
  windsurf: {
    tool: 'Windsurf',
    dir: '.windsurf/rules',
    ext: ['.md'],
    where: 'rules only as .md files inside .windsurf/rules/',
  },
  cline: {
    tool: 'Cline',
    dir: '.clinerules',
    ext: ['.md', '.txt'],
    where: 'rules from a .clinerules file or the files of a .clinerules/ directory',
  },
  kiro: {
    tool: 'Kiro',
    dir: '.kiro/steering',
    ext: ['.md'],
    where: 'steering files only as .md files inside .kiro/steering/',
  },
  continue: {
    tool: 'Continue',
    dir: '.continue/rules',
    ext: ['.md'],
    where: 'rules only as .md files inside .continue/rules/',
  },
  copilot: {
    tool: 'GitHub Copilot',
    dir: '.github/instructions',
    ext: ['.instructions.md'],
    where: 'path rules only as .instructions.md files inside .github/instructions/',
  },
  claude: {
    tool: 'Claude Code',
    dir: '.claude/rules',
    ext: ['.md'],
    where: 'rules only as .md files inside .claude/rules/',
  },
}

/** What is wrong with where a file lies, in words: outside the rule directory, or a wrong extension inside it. */
function misplaced(shown: string, place: RulePlace): string {
  const slash = shown.lastIndexOf('/')
  const folder = slash < 0 ? 'the root' : `${shown.slice(0, slash)}/`
  const inside = shown.startsWith(`${place.dir}/`) || shown.includes(`/${place.dir}/`)
  if (inside && !place.ext.some((e) => shown.endsWith(e)))
    return `in ${place.dir}/ but does not end in ${place.ext.join(' or ')}`
  return `in ${folder}, not inside a ${place.dir}/ directory`
}

/** For each working path: whether it loads the file, and which pattern or directory decided (or why none could). */
function pathsFor(
  context: DiscoveryContext,
  explained: InstructionExplanation,
  paths: readonly string[],
): NonNullable<InstructionExplanation['paths']> {
  const candidate = context.onDemand.find((c) => c.loaded.path === explained.file)
  return paths.map((path) => {
    const shown = context.display(path)
    if (candidate === undefined) {
      const how =
        explained.status === 'included' || explained.status === 'truncated'
          ? `${shown} changes nothing: the file is loaded at start, whatever the agent works on`
          : `${shown} changes nothing: the file is not loaded for any working path`
      return { path: shown, matched: false, how }
    }
    const { trigger } = candidate
    if (trigger.kind === 'under') {
      const matched = fires(trigger, path)
      return {
        path: shown,
        matched,
        how: matched
          ? `${shown} is under ${context.display(trigger.dir)}: loaded with its tool result`
          : `${shown} is not under ${context.display(trigger.dir)}: not loaded for it`,
      }
    }
    const glob = trigger.globs.find((g) => fires({ ...trigger, globs: [g] }, path))
    return {
      path: shown,
      matched: glob !== undefined,
      how:
        glob === undefined
          ? `${shown} matches none of ${trigger.globs.join(', ')}: not loaded for it`
          : `${shown} matches ${glob}: loaded with its tool result`,
    }
  })
}
