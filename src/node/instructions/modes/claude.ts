import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { byCodeUnit } from '../../../registry/tool-order.js'
import { nodeYaml } from '../../front-matter-yaml.js'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { matchesEverything, type RuleGlobs, ruleGlobs } from '../globs.js'
import { nestedOnDemand } from '../on-demand.js'
import { distanceFrom, type ModeRules, optionalCap, type PlannedEntry, plannedEntry } from '../plan.js'
import { isFile, loadFound } from '../read.js'
import { type ClaudeImportScope, claudeImports } from './claude-imports.js'

const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

/**
 * `claude` mode: Claude Code as observed (ANCHORS, Claude Code 2.1.332). Rules:
 * - global: `~/.claude/CLAUDE.md`, then the rules in `~/.claude/rules/`
 *   (the managed policy file outside the home directory is not read: pass
 *   it in `globalFiles` to include it);
 * - project walk over every directory from the file-system root (`fsRoot`)
 *   down to cwd, ignoring git; outermost first;
 * - per directory: `CLAUDE.md`, then `.claude/CLAUDE.md`, then the rules in
 *   `.claude/rules/` (Markdown files, recursively, sorted by path), then
 *   `CLAUDE.local.md`; all of them, not one per directory (`names` is ignored);
 * - `AGENTS.md` by the `instructionFiles` setting (`~/.claude/settings.json`
 *   `pluginConfigs["cc-plugin-agents-md"].options`, or `harnessConfig`):
 *   `claude-md-or-agents-md` (the default) reads it in the place of
 *   `CLAUDE.md` when no `CLAUDE.md` or `.claude/CLAUDE.md` exists on the
 *   whole walk; `claude-md-and-agents-md` reads it right after `CLAUDE.md`
 *   in every directory (not recorded: its place follows the plugin's
 *   description); `claude-md` never; `managed-only` loads no user or
 *   project file at all;
 * - rules whose front matter has `paths:` are attached only when a matching
 *   file is read, so they are on demand (globs relative to the directory
 *   holding `.claude`, or to cwd for the user's rules); the others load at
 *   start; both without their front matter;
 * - `CLAUDE.md`, `.claude/CLAUDE.md` and `CLAUDE.local.md` in directories
 *   below cwd are loaded when the agent reads a file under them: on demand;
 * - imports: each imported file is its own entry right after its importer,
 *   depth first, at most 5 deep; the `@` line stays as text; imports outside
 *   cwd are dropped unless `hasClaudeMdExternalIncludesApproved` is true for
 *   the project (`~/.claude.json` `projects[<git root>]`, or
 *   `harnessConfig`), and then read within the project root only;
 * - no cap (an explicit `maxBytes` applies the nearest-first budget).
 */
export const claudeMode: ModeRules = {
  async plan(context) {
    const dirs = dirsDown(context.fsRoot, context.cwd)
    context.candidates = ['CLAUDE.md', 'CLAUDE.local.md', 'AGENTS.md']
    context.walk = {
      dirs,
      description: `every directory from the file-system root ${context.fsRoot} down to the working directory ${context.cwd}, ignoring git`,
    }
    const scope: ClaudeImportScope = { seen: new Set() }
    const entries: PlannedEntry[] = []
    const globalDir = join(context.home, '.claude')
    const globals = context.options.globalFiles ?? [
      join(globalDir, 'CLAUDE.md'),
      ...(await rules(context, join(globalDir, 'rules'), [globalDir], context.cwd)),
    ]
    for (const path of globals) {
      if (!(await isFile(context, path))) continue
      entries.push(...(await load(context, path, 'global', [dirname(path)], scope, Number.POSITIVE_INFINITY)))
    }
    const choice = instructionFiles(context)
    if (choice.value === 'managed-only') {
      skipAll(
        context,
        [
          ...entries.map((e) => e.path),
          ...dirs.flatMap((d) => ['CLAUDE.md', 'AGENTS.md', 'CLAUDE.local.md'].map((n) => join(d, n))),
        ],
        choice,
      )
      context.onDemand.length = 0
      return { entries: [], cap: optionalCap(context) }
    }
    const fallback =
      choice.value === 'claude-md-or-agents-md' &&
      !(await anyPresent(context, dirs, ['CLAUDE.md', join('.claude', 'CLAUDE.md')]))
    for (const dir of dirs) {
      const candidates = [
        join(dir, 'CLAUDE.md'),
        join(dir, '.claude', 'CLAUDE.md'),
        ...(await rules(context, join(dir, '.claude', 'rules'), context.confinementFor(dir), dir)),
        join(dir, 'CLAUDE.local.md'),
      ]
      const agents = join(dir, 'AGENTS.md')
      if (fallback) candidates[0] = agents
      else if (choice.value === 'claude-md-and-agents-md') candidates.splice(1, 0, agents)
      else if (await isFile(context, agents))
        context.skip(
          agents,
          'fallback-unused',
          (await linkedTo(context, join(dir, 'CLAUDE.md'), agents))
            ? `${context.display(join(dir, 'CLAUDE.md'))} is a link to ${context.display(agents)}: Claude Code loads this text once, through CLAUDE.md (explain ${context.display(join(dir, 'CLAUDE.md'))}), and does not read AGENTS.md again`
            : choice.value === 'claude-md'
              ? choice.source.startsWith('the Claude Code')
                ? `Claude Code never reads AGENTS.md in ${choice.source}`
                : `Claude Code does not read AGENTS.md with instructionFiles claude-md (${choice.source})`
              : 'Claude Code reads AGENTS.md only when no CLAUDE.md exists from the working directory upward',
        )
      const distance = distanceFrom(context, dir)
      for (const path of candidates) {
        if (!(await isFile(context, path))) continue
        const loaded = await load(context, path, 'project', context.confinementFor(dir), scope, distance)
        if (path === agents && loaded[0] !== undefined && choice.source !== 'the default')
          loaded[0].setBy = `instructionFiles ${choice.value} (${choice.source})`
        entries.push(...loaded)
      }
    }
    // Claude Code loads a nested CLAUDE.md when its Read tool reads a file in that subtree (memory
    // docs, "discover CLAUDE.md nested in subtrees under your current working directory";
    // anthropics/claude-code#90449). No dot-directory exclusion is documented, so `.github/` counts;
    // gitignored directories stay out as its nested skill discovery skips them (CHANGELOG 2.1.69).
    await nestedOnDemand(context, NESTED_NAMES)
    return { entries, cap: optionalCap(context) }
  },
}

/** Claude Code's `instructionFiles` in effect, with what set it. */
function instructionFiles(context: DiscoveryContext): { value: string; source: string } {
  const set = context.setting('instructionFiles')
  const profile = context.profile
  if (profile !== null && !profile.behaviour.agentsMd) {
    if (set !== undefined)
      context.report(
        'harness-config',
        `${set.source} has no effect in Claude Code ${profile.version} (${profile.range}: ${profile.changes}).`,
        undefined,
        'info',
      )
    return { value: 'claude-md', source: `the Claude Code ${profile.version} profile, ${profile.range}` }
  }
  return set === undefined
    ? { value: 'claude-md-or-agents-md', source: 'the default' }
    : { value: set.value as string, source: set.source }
}

function skipAll(context: DiscoveryContext, paths: readonly string[], choice: { source: string }): void {
  for (const path of paths)
    context.skip(
      path,
      'not-a-candidate',
      `Claude Code loads only managed policy files at start with instructionFiles managed-only (${choice.source})`,
    )
}

/** The files of a directory below cwd that Claude Code loads when the agent reads a file there. */
const NESTED_NAMES: readonly string[] = ['CLAUDE.md', join('.claude', 'CLAUDE.md'), 'CLAUDE.local.md']

async function load(
  context: DiscoveryContext,
  path: string,
  kind: 'global' | 'project',
  roots: readonly string[],
  scope: ClaudeImportScope,
  /** How far its walked directory lies from cwd (global files: farthest), for the budget. */
  distance: number,
): Promise<PlannedEntry[]> {
  const loaded = await loadFound(context, path, roots, kind)
  if (loaded === undefined) return []
  if (scope.seen.has(loaded.realPath)) {
    context.skip(path, 'duplicate', 'the same file was already loaded')
    return []
  }
  scope.seen.add(loaded.realPath)
  const isRule = /[\\/]\.claude[\\/]rules[\\/]/.test(path)
  // Approved imports outside cwd are read, but never outside the project root.
  const approved = context.setting('hasClaudeMdExternalIncludesApproved')?.value === true
  const allowed = kind === 'global' ? roots[0]! : approved ? context.root : context.cwd
  const entry = await plannedEntry(context, loaded, kind, {
    // Claude Code sends a rule without its front matter (it has no imports inlined to move).
    shape: isRule
      ? (read) => ({ text: read.text.replace(FRONT_MATTER, ''), imports: read.imports, spans: read.spans })
      : undefined,
    distance,
  })
  return [entry, ...(await claudeImports(context, loaded, kind, allowed, distance, scope))]
}

async function anyPresent(
  context: DiscoveryContext,
  dirs: readonly string[],
  names: readonly string[],
): Promise<boolean> {
  for (const dir of dirs) for (const name of names) if (await isFile(context, join(dir, name))) return true
  return false
}

/**
 * The rule files loaded at start from a rules directory: Markdown files,
 * recursively (links to directories are not followed), sorted by path.
 * Those whose front matter has `paths:` are recorded as on demand instead,
 * their globs relative to `base`.
 */
async function rules(
  context: DiscoveryContext,
  dir: string,
  roots: readonly string[],
  base: string,
): Promise<string[]> {
  const files = (await listMarkdown(dir)).sort(byCodeUnit)
  const loaded: string[] = []
  for (const path of files) {
    const read = await loadFound(context, path, roots)
    if (read === undefined) {
      // Withheld (a link to a denied file): listed, so that its mark takes the rule's place among the files.
      if (context.withheld.has(path)) loaded.push(path)
      continue
    }
    const globs = pathGlobs(read.text)
    if (globs !== undefined) {
      const text = read.text.replace(FRONT_MATTER, '')
      context.onDemand.push({
        loaded: read,
        trigger: {
          kind: 'matches',
          globs: globs.patterns,
          base,
          syntax: 'gitignore',
          written: globs.written,
        },
        text,
      })
      continue
    }
    loaded.push(path)
  }
  return loaded
}

/**
 * The `paths:` globs of a rule's front matter (a list, or one comma-separated
 * string); `undefined` when it has none, or only `**`, which Claude Code
 * loads at start like a rule without `paths:`.
 */
function pathGlobs(text: string): RuleGlobs | undefined {
  const yaml = FRONT_MATTER.exec(text)?.[1]
  if (yaml === undefined) return undefined
  let data: unknown
  try {
    data = nodeYaml().parse(yaml)
  } catch {
    return undefined
  }
  // A scalar or a list has no `paths` either.
  const paths = (data as { paths?: unknown } | null | undefined)?.paths
  if (paths == null) return undefined
  const globs = ruleGlobs(Array.isArray(paths) ? paths.map(String) : String(paths), 'gitignore')
  return matchesEverything(globs.patterns) ? undefined : globs
}

async function listMarkdown(dir: string): Promise<string[]> {
  let entries: Dirent[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return []
  }
  const found: string[] = []
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...(await listMarkdown(path)))
    else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.md')) found.push(path)
  }
  return found
}

/** Whether `link` exists and resolves to the same file as `target` (CLAUDE.md as a link to AGENTS.md). */
async function linkedTo(context: DiscoveryContext, link: string, target: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    context.fs.realpath(link).catch(() => undefined),
    context.fs.realpath(target).catch(() => undefined),
  ])
  return a !== undefined && a === b && link !== target
}
