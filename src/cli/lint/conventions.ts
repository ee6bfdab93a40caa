import { lstat, realpath } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { nodeYaml } from '../../node/front-matter-yaml.js'
import { nodeGitAdapter } from '../../node/index.js'
import { INSTRUCTION_MODES, type InstructionMode } from '../../node/instructions/discovery-options.js'
import { patternTest } from '../../node/instructions/globs.js'
import { dirsBelow } from '../../node/instructions/on-demand.js'
import { READ_LIMIT } from '../../node/instructions/read.js'
import type { ProjectPrompt } from '../../node/project/project-prompt.js'
import { readCliFile } from '../../node/project/read-file.js'
import {
  type DiscoveryLimits,
  discoverAll,
  discoveryLimits,
  type HarnessLoad,
} from '../../node/report/harness-loads.js'
import {
  CONVENTIONS,
  INSTRUCTION_NAMES,
  neverLoaded,
  type RuleFile,
  readSmall,
  rel,
  ruleFiles,
} from '../../node/report/rule-files.js'
import { isInside } from '../../node/safe-read.js'
import { parseModes } from '../modes-option.js'
import { firstDifference } from '../same.js'
import type { Finding } from './types.js'

/**
 * The cross-convention rule lint (issue 16): rules that never fire because
 * each tool spells its front matter differently, globs that match nothing,
 * links committed as plain files, files loaded twice, and harnesses that
 * would read different instructions for the same working path.
 */

/** What the lint needs from the project. */
interface Scope {
  root: string
  cwd: string
  paths: readonly string[]
}

/** The 1-based line of a front-matter key, else 1. */
function keyLine(text: string, key: string): number {
  const index = text
    .split('\n')
    .findIndex((line) => line.startsWith(`${key}:`) || line.startsWith(`${key} :`))
  return index === -1 ? 1 : index + 1
}

/** Front-matter keys another tool reads, naming that tool and what the owner does instead. */
function foreignKeys(rule: RuleFile, root: string): Finding[] {
  const own = new Set(rule.convention.keys)
  const out: Finding[] = []
  const foreign = Object.keys(rule.data).filter((key) => !own.has(key))
  const readers = (key: string) => CONVENTIONS.filter((c) => c.keys.includes(key)).map((c) => c.tool)
  const claimed = foreign.filter((key) => readers(key).length > 0)
  if (claimed.length === 0) return out
  const tools = [...new Set(claimed.flatMap(readers))]
  const keys = claimed.map((k) => `\`${k}\``).join(', ')
  const fallout =
    rule.convention.tool === 'Claude Code' && rule.data.paths === undefined
      ? 'Claude Code ignores them and loads this rule at every session start'
      : `${rule.convention.tool} ignores them`
  out.push({
    severity: 'warning',
    code: 'foreign-front-matter',
    message: `${rel(root, rule.path)} sits in ${rule.convention.dir}/ (${rule.convention.tool}) but its front matter uses ${keys}, read by ${tools.join(' and ')}; ${fallout}. Use ${rule.convention.tool}'s keys (${rule.convention.keys.join(', ')}) or move the rule.`,
    file: rule.path,
    line: keyLine(rule.text.replace(/\r\n?/g, '\n'), claimed[0]!),
    column: 1,
  })
  return out
}

/** Copilot's `applyTo` written as a YAML list (which Copilot discards), and a `.md` in `.cursor/rules`. */
function spelling(rule: RuleFile, root: string): Finding[] {
  const out: Finding[] = []
  const shown = rel(root, rule.path)
  if (rule.convention.tool === 'Copilot' && Array.isArray(rule.data.applyTo)) {
    out.push({
      severity: 'warning',
      code: 'applyto-list',
      message: `${shown} gives applyTo as a YAML list, which Copilot discards, so the file is never applied: write one text, applyTo: "${(rule.data.applyTo as unknown[]).map(String).join(',')}"`,
      file: rule.path,
      line: keyLine(rule.text, 'applyTo'),
      column: 1,
    })
  }
  if (rule.convention.tool === 'Cursor' && rule.path.endsWith('.md')) {
    out.push({
      severity: 'warning',
      code: 'md-not-mdc',
      message: `${shown} is a plain .md in .cursor/rules, which Cursor ignores: rename it to ${shown.replace(/\.md$/, '.mdc')}`,
      file: rule.path,
      line: 1,
      column: 1,
    })
  }
  return out
}

/** Tracked files of the repository (`git ls-files` through the hardened adapter); undefined when git cannot say. */
async function trackedFiles(root: string): Promise<string[] | undefined> {
  const result = await nodeGitAdapter().run(['ls-files', '-z', '--full-name'], {
    cwd: root,
    timeoutMs: 20_000,
  })
  if (!result.ok) return undefined
  return result.stdout.split('\0').filter((name) => name.length > 0)
}

/** Globs of rules that match no tracked file, checked once per rule and glob. */
async function deadGlobs(loads: readonly HarnessLoad[], scope: Scope): Promise<Finding[]> {
  const tracked = await trackedFiles(scope.root)
  // Nothing tracked yet (a fresh repository): git cannot tell a dead glob from an early one.
  if (tracked === undefined || tracked.length === 0) return []
  const seen = new Set<string>()
  const out: Finding[] = []
  for (const { discovery } of loads) {
    for (const file of discovery.onDemand) {
      if (file.trigger.kind !== 'matches' || seen.has(file.path)) continue
      // An AGENTS.md in a subdirectory gets its glob from the tool (Windsurf's `<dir>/**`), not from its author.
      if (INSTRUCTION_NAMES.some((name) => file.path.endsWith(`${sep}${name}`))) continue
      seen.add(file.path)
      const base = file.trigger.base
      const syntax = file.trigger.syntax ?? 'picomatch'
      // A `!` pattern excludes; it cannot be dead in the sense of a pattern that should match.
      const dead = file.trigger.globs.filter((glob) => {
        if (glob.startsWith('!')) return false
        const match = patternTest(syntax, glob)
        return !tracked.some((name) => {
          const absolute = resolve(scope.root, name)
          return isInside(base, absolute) && match(rel(base, absolute))
        })
      })
      if (dead.length === 0) continue
      const text = (await readSmall(scope.root, file.path, READ_LIMIT)) ?? ''
      const key = ['globs', 'applyTo', 'paths', 'fileMatchPattern'].find((k) => keyLine(text, k) > 1)
      out.push({
        severity: 'warning',
        code: 'glob-matches-nothing',
        message: `${rel(scope.root, file.path)}: ${dead.map((g) => `\`${g}\``).join(', ')} match${dead.length === 1 ? 'es' : ''} no tracked file, so the rule never fires: fix the pattern (relative to ${rel(scope.root, base) || 'the root'})`,
        file: file.path,
        line: key === undefined ? 1 : keyLine(text, key),
        column: 1,
      })
    }
  }
  return out
}

/** Rule files and instruction-like files no mode loads (the `.md` in `.cursor/rules` has its own finding). */
async function neverLoads(
  rules: readonly RuleFile[],
  loads: readonly HarnessLoad[],
  scope: Scope,
): Promise<Finding[]> {
  const dirs = [scope.root, ...(await dirsBelowRoot(scope))]
  const found = await neverLoaded(rules, loads, scope.root, dirs)
  return found
    .filter((f) => !(f.tool === 'Cursor' && f.reason === 'wrong-extension' && f.shown.endsWith('.md')))
    .map((f) => ({
      severity: 'warning' as const,
      code: 'rule-never-loads',
      message: f.message,
      file: join(scope.root, f.shown),
      line: 1,
      column: 1,
    }))
}

/** Instruction files whose whole text is the path of another existing instruction file: a link committed as text. */
async function textLinks(
  loads: readonly HarnessLoad[],
  rules: readonly RuleFile[],
  scope: Scope,
): Promise<Finding[]> {
  const candidates = new Set<string>(rules.map((r) => r.path))
  for (const dir of [scope.root, ...(await dirsBelowRoot(scope))])
    for (const name of INSTRUCTION_NAMES) candidates.add(join(dir, name))
  for (const { discovery } of loads) for (const file of discovery.files) candidates.add(file.path)
  const out: Finding[] = []
  for (const path of [...candidates].sort()) {
    if (!isInside(scope.root, path)) continue
    const stat = await lstat(path).catch(() => undefined)
    if (stat === undefined || !stat.isFile() || stat.size > 512) continue
    const text = (await readSmall(scope.root, path, 512))?.trim()
    if (text === undefined || text.length === 0 || /\s/.test(text)) continue
    const target = resolve(dirname(path), text)
    if (target === path || !isInside(scope.root, target)) continue
    const found = await lstat(target).catch(() => undefined)
    if (found === undefined || found.isDirectory()) continue
    out.push({
      severity: 'warning',
      code: 'text-not-symlink',
      message: `${rel(scope.root, path)} holds only the path ${text}: a link committed as a plain file (a checkout without symlinks), so harnesses read the path itself as the instructions. Make it a real link (git config core.symlinks true, then check it out again) or copy the text`,
      file: path,
      line: 1,
      column: 1,
    })
  }
  return out
}

async function dirsBelowRoot(scope: Scope): Promise<string[]> {
  // Only a few levels matter for instruction files; the walk is bounded by ON_DEMAND_DIR_LIMIT anyway.
  const { createContext } = await import('../../node/instructions/create-context.js')
  const context = await createContext({ cwd: scope.root, root: scope.root, tokenizer: 'estimate' })
  return dirsBelow(context, scope.root)
}

/** The same file loaded twice by one harness through a link (start files and late-bound ones). */
async function loadedTwice(loads: readonly HarnessLoad[], root: string): Promise<Finding[]> {
  const out: Finding[] = []
  for (const { mode, discovery } of loads) {
    const byReal = new Map<string, string[]>()
    const paths = [...discovery.files.map((f) => f.path), ...discovery.lateBound.map((f) => f.path)]
    for (const path of new Set(paths)) {
      const real = await realpath(path).catch(() => path)
      byReal.set(real, [...(byReal.get(real) ?? []), path])
    }
    for (const [real, group] of byReal) {
      if (group.length < 2) continue
      const [first, ...rest] = group.map((p) => rel(root, p))
      out.push({
        severity: 'warning',
        code: 'loaded-twice',
        message: `${mode} loads ${rel(root, real) || real} twice, as ${[first, ...rest].join(' and ')} (a link to the same file), so its text reaches the model twice: remove one of them`,
        // The finding sits on the link, the file a user would remove.
        file: group.find((p) => p !== real) ?? group[1]!,
        line: 1,
        column: 1,
      })
    }
  }
  return out
}

/** The modes a team promises to keep in step: `--modes`, else `modes:` in `.sysprompt/config`, else none. */
export async function promisedModes(
  root: string,
  given: readonly InstructionMode[] | undefined,
): Promise<InstructionMode[]> {
  if (given !== undefined) return [...given]
  const path = join(root, '.sysprompt', 'config')
  const read = await readCliFile({ path, root, maxBytes: 64 * 1024 }, path)
  if (!read.ok) return []
  let data: unknown
  try {
    data = nodeYaml().parse(read.text)
  } catch {
    return []
  }
  const modes = (data as { modes?: unknown } | null)?.modes
  const value = Array.isArray(modes)
    ? modes.map(String).join(',')
    : typeof modes === 'string'
      ? modes
      : undefined
  return value === undefined ? [] : parseModes(value, `.sysprompt/config modes:`)
}

/** Instruction text that differs between two promised harnesses for the same working path. */
function differing(
  loads: readonly HarnessLoad[],
  promised: readonly InstructionMode[],
  scope: Scope,
): Finding[] {
  if (promised.length < 2) return []
  const chosen = promised.map((mode) => loads.find((l) => l.mode === mode)!).filter((l) => l !== undefined)
  const out: Finding[] = []
  for (const path of scope.paths.length === 0 ? [undefined] : scope.paths) {
    const difference = firstDifference(chosen, path, scope.root, scope.cwd)
    if (difference === undefined) continue
    out.push({
      severity: 'warning',
      code: 'harnesses-differ',
      message: `${difference.message}; keep one set of instructions for every agent`,
      file: difference.file,
      line: 1,
      column: 1,
    })
  }
  return out
}

/** Every cross-convention finding of the project, sorted by file. */
export async function lintConventions(
  project: Pick<ProjectPrompt, 'root' | 'cwd'> & {
    options: { paths: readonly string[]; root?: string | undefined } & DiscoveryLimits
  },
  modes: readonly InstructionMode[] | undefined,
): Promise<Finding[]> {
  const scope: Scope = { root: project.root, cwd: project.cwd, paths: project.options.paths }
  const promised = await promisedModes(scope.root, modes)
  const loads = await discoverAll({
    cwd: scope.cwd,
    root: scope.root,
    rootIsBoundary: project.options.root !== undefined,
    modes: INSTRUCTION_MODES,
    paths: scope.paths,
    // The lint compares texts and files, never counts.
    tokenizer: 'estimate',
    ...discoveryLimits(project.options),
  })
  const rules = await ruleFiles(scope.root)
  const findings = [
    ...rules.flatMap((r) => [...foreignKeys(r, scope.root), ...spelling(r, scope.root)]),
    ...(await deadGlobs(loads, scope)),
    ...(await neverLoads(rules, loads, scope)),
    ...(await textLinks(loads, rules, scope)),
    ...(await loadedTwice(loads, scope.root)),
    ...differing(loads, promised, scope),
  ]
  return findings
}
