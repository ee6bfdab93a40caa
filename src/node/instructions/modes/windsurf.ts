import { join, sep } from 'node:path'
import { listDir } from '../../fs-memo.js'
import { groupDigits } from '../budget.js'
import type { DiscoveryContext } from '../context.js'
import type { RuleActivation } from '../discovery-options.js'
import { dirsDown } from '../git-root.js'
import { ruleGlobs } from '../globs.js'
import { dirsBelow } from '../on-demand.js'
import { type ModeRules, optionalCap, type PlannedEntry } from '../plan.js'
import { alwaysFile, descriptionOf, fileRule, listRules, loadRuleFile, readRule } from './convention.js'

/** Windsurf reads at most this many characters of one rule file. */
export const WINDSURF_RULE_CHARS = 12_000

const TRIGGERS: Readonly<Record<string, RuleActivation>> = {
  always_on: 'always',
  glob: 'glob',
  model_decision: 'requested',
  manual: 'manual',
}

/**
 * `windsurf` mode: Windsurf's Cascade, from its documentation ("Memories &
 * Rules", docs.windsurf.com/windsurf/cascade/memories, and "AGENTS.md",
 * docs.windsurf.com/windsurf/cascade/agents-md). Rules:
 * - global: `~/.codeium/windsurf/memories/global_rules.md`, always on;
 * - `.windsurf/rules/*.md` in every directory from the git root (the
 *   workspace's parents up to it) down to cwd, and in every directory
 *   below cwd (the workspace's subdirectories); `trigger: always_on` at
 *   start, `glob` (with `globs`, relative to the directory holding
 *   `.windsurf`) on demand, `model_decision` on request by its
 *   `description`, `manual` only when named; a rule without `trigger` is
 *   taken as always on (the documentation names no default);
 * - the legacy `.windsurfrules` at the root: at start;
 * - `AGENTS.md` (or `agents.md`: the name is matched without regard to
 *   case) at the root: always on; in a subdirectory: as the glob
 *   `<dir>/**`, so on demand when the agent works under it;
 * - each rule file is cut at 12 000 characters (the documented limit),
 *   visibly: the file is marked truncated and a diagnostic says where;
 * - no other cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const windsurfMode: ModeRules = {
  async plan(context) {
    const root = context.root
    const cwd = context.cwd
    const below = await dirsBelow(context, root)
    // Rules discovery (memories page): "all .windsurf/rules directories within the current workspace and
    // its sub-directories", and for a git repository "parent directories up to the git root".
    const dirs = [...dirsDown(root, cwd), ...below.filter((dir) => dir.startsWith(cwd + sep))]
    context.candidates = ['.windsurfrules', 'AGENTS.md', 'agents.md', 'global_rules.md']
    context.walk = {
      dirs,
      description: `the directories from the git root ${root} down to ${cwd}, and every directory below ${cwd}`,
    }
    const entries: PlannedEntry[] = []
    // Global rules (memories page): ~/.codeium/windsurf/memories/global_rules.md, always on.
    const globals = context.options.globalFiles ?? [
      join(context.home, '.codeium', 'windsurf', 'memories', 'global_rules.md'),
    ]
    for (const path of globals)
      push(context, entries, await alwaysFile(context, path, context.home, 'global'))
    for (const dir of dirs) {
      const listed = await listRules(join(dir, '.windsurf', 'rules'), (name) => name.endsWith('.md'), false)
      for (const path of listed.files) {
        const loaded = await loadRuleFile(context, path, dir)
        if (loaded === undefined) continue
        const rule = readRule(loaded.text, path)
        const trigger = typeof rule.data.trigger === 'string' ? rule.data.trigger : 'always_on'
        const activation = TRIGGERS[trigger] ?? 'manual'
        const entry = await fileRule(context, loaded, {
          activation,
          ...windsurfGlobs(rule.data.globs),
          base: dir,
          text: limited(context, path, rule.body),
          tool: 'Windsurf',
          because:
            TRIGGERS[trigger] === undefined
              ? `trigger ${trigger} is not one Windsurf knows`
              : `trigger: ${trigger}`,
          description: descriptionOf(rule.data),
        })
        push(context, entries, entry, rule.body)
      }
    }
    // The legacy single file at the workspace root (memories page), always on.
    push(context, entries, await alwaysFile(context, join(root, '.windsurfrules'), root))
    // AGENTS.md page (docs.windsurf.com/windsurf/cascade/agents-md): "Root directory: treated as an
    // always-on rule"; "Subdirectories: treated as a glob rule with an auto-generated pattern of
    // <directory>/**"; "Case insensitive: Both AGENTS.md and agents.md are recognized".
    for (const path of await agentsFiles(context, root))
      push(context, entries, await alwaysFile(context, path, root))
    for (const dir of below) {
      for (const path of await agentsFiles(context, dir)) {
        const loaded = await loadRuleFile(context, path, dir)
        if (loaded === undefined) continue
        context.activations.set(path, 'glob')
        context.onDemand.push({
          loaded,
          trigger: { kind: 'matches', globs: ['**'], base: dir },
          text: limited(context, path, loaded.text),
        })
      }
    }
    return { entries, cap: optionalCap(context) }
  },
}

/** The AGENTS.md files of a directory, their names matched as Windsurf matches them: without regard to case. */
async function agentsFiles(context: DiscoveryContext, dir: string): Promise<string[]> {
  try {
    const names = (await listDir(context.fs, dir)).map((e) => e.name)
    return names
      .filter((name) => name.toLowerCase() === 'agents.md')
      .sort()
      .map((name) => join(dir, name))
  } catch {
    return []
  }
}

/** A rule's text as Windsurf reads it: its first 12 000 characters, the cut reported where it falls. */
function limited(context: DiscoveryContext, path: string, text: string): string {
  if (text.length <= WINDSURF_RULE_CHARS) return text
  context.report(
    'truncated',
    `Windsurf reads only the first ${groupDigits(WINDSURF_RULE_CHARS)} characters of ${context.display(path)}; its last ${groupDigits(text.length - WINDSURF_RULE_CHARS)} never reach the model. Split the rule into smaller files.`,
    path,
  )
  return text.slice(0, WINDSURF_RULE_CHARS)
}

/** Adds an entry at start, marking the per-rule cut on it. */
function push(
  context: DiscoveryContext,
  entries: PlannedEntry[],
  entry: PlannedEntry | undefined,
  full?: string,
): void {
  if (entry === undefined) return
  const whole = full ?? entry.text
  if (whole.length > WINDSURF_RULE_CHARS) {
    entry.text = full === undefined ? limited(context, entry.path, whole) : entry.text
    entry.file = { ...entry.file, truncated: true }
    entry.limit = {
      omitted: whole.length - WINDSURF_RULE_CHARS,
      rule: `Windsurf reads ${groupDigits(WINDSURF_RULE_CHARS)} characters of a rule file`,
    }
  }
  entries.push(entry)
}

/** A rule's `globs`, matched as picomatch matches them, shown as written. */
function windsurfGlobs(value: unknown): { globs: string[]; written: string } {
  const { patterns, written } = ruleGlobs(value, 'picomatch')
  return { globs: patterns, written }
}
