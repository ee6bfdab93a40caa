import { readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { denyList } from '../deny-list.js'
import { nodeAdapters } from '../index.js'
import { NOT_RULES as CLINE_NOT_RULES } from '../instructions/modes/cline.js'
import { listRules, readRule } from '../instructions/modes/convention.js'
import { READ_LIMIT } from '../instructions/read.js'
import { isInside, readConfinedFile } from '../safe-read.js'
import type { HarnessLoad } from './harness-loads.js'

/**
 * The rule files of every convention and the instruction-like files no
 * harness reads (issue 31): what `lint` warns about (`rule-never-loads`) and
 * what `inspect` lists under "Never loaded", from one scan.
 */

/** Each convention's rules directory, the tool that reads it, and the front-matter keys that tool reads. */
export const CONVENTIONS: readonly { dir: string; tool: string; keys: readonly string[]; ext: string }[] = [
  { dir: '.claude/rules', tool: 'Claude Code', keys: ['paths'], ext: '.md' },
  { dir: '.cursor/rules', tool: 'Cursor', keys: ['description', 'globs', 'alwaysApply'], ext: '.mdc' },
  {
    dir: '.github/instructions',
    tool: 'Copilot',
    keys: ['applyTo', 'excludeAgent', 'name', 'description'],
    ext: '.instructions.md',
  },
  { dir: '.windsurf/rules', tool: 'Windsurf', keys: ['trigger', 'globs', 'description'], ext: '.md' },
  { dir: '.clinerules', tool: 'Cline', keys: ['paths'], ext: '.md' },
  {
    dir: '.kiro/steering',
    tool: 'Kiro',
    keys: ['inclusion', 'fileMatchPattern', 'name', 'description'],
    ext: '.md',
  },
  {
    dir: '.continue/rules',
    tool: 'Continue',
    keys: ['name', 'description', 'globs', 'regex', 'alwaysApply'],
    ext: '.md',
  },
]

/** Names that hold instructions by themselves, each read by some harness under exactly this spelling. */
export const INSTRUCTION_NAMES: readonly string[] = [
  'AGENTS.md',
  'AGENT.md',
  'CLAUDE.md',
  'GEMINI.md',
  'CONTEXT.md',
  '.cursorrules',
  '.windsurfrules',
  '.clinerules',
  '.rules',
  '.github/copilot-instructions.md',
  '.junie/guidelines.md',
]

/** A rule file of some convention, its front matter read. */
export interface RuleFile {
  path: string
  convention: (typeof CONVENTIONS)[number]
  data: Record<string, unknown>
  text: string
  /** Whether the name has the convention's extension (`.mdc`, `.instructions.md`, …). */
  named: boolean
}

/** Why no harness reads an instruction-like file. */
export type NeverLoadedReason =
  | 'manual-only'
  | 'wrong-extension'
  | 'wrong-front-matter'
  | 'misplaced'
  | 'misnamed'

/** A file that looks like instructions and that no harness loads, with the reason and what to do. */
export interface NeverLoaded {
  path: string
  shown: string
  reason: NeverLoadedReason
  /** The tool the file was meant for, when its place or name says. */
  tool: string | null
  /** One sentence: why, and what to do. */
  message: string
}

/** `path` relative to `root`, with forward slashes. */
export function rel(root: string, path: string): string {
  return relative(root, path).split(sep).join('/')
}

/** The default deny-list: no secret-bearing file is read, by name or through a link. */
const DENY = denyList()

/** A file of the root read whole, confined and denied as discovery reads; undefined when it cannot be (or is cut). */
export async function readSmall(root: string, path: string, maxBytes: number): Promise<string | undefined> {
  const read = await readConfinedFile(rel(root, path), root, {
    roots: [root],
    // Judged by the file a link resolves to as well: a rule linked to `.env` is not read.
    denyList: DENY,
    maxBytes,
    fs: nodeAdapters().fs,
  })
  return read.ok && !read.truncated ? read.text : undefined
}

/** Every `.md`/`.mdc` file in a convention's rules directory of the root, its front matter read. */
export async function ruleFiles(root: string): Promise<RuleFile[]> {
  const out: RuleFile[] = []
  for (const convention of CONVENTIONS) {
    const dir = join(root, convention.dir)
    // Cline's workflows, hooks and skills sit under .clinerules/ but are not rules (cline.ts says why).
    const skip = convention.tool === 'Cline' ? CLINE_NOT_RULES : new Set<string>()
    const listed = await listRules(dir, () => true, true, skip)
    for (const path of [...listed.files, ...listed.others].sort()) {
      if (!path.endsWith('.md') && !path.endsWith('.mdc')) continue
      const text = await readSmall(root, path, READ_LIMIT)
      if (text === undefined) continue
      out.push({
        path,
        convention,
        data: readRule(text, path).data,
        text,
        named: path.endsWith(convention.ext),
      })
    }
  }
  return out
}

/** Every file some mode loads: at start, on demand, on request (manual-only rules apart). */
function loadedPaths(loads: readonly HarnessLoad[]): { loaded: Set<string>; manual: Set<string> } {
  const loaded = new Set<string>()
  const manual = new Set<string>()
  for (const { discovery } of loads) {
    for (const file of discovery.files) loaded.add(file.path)
    for (const file of discovery.onDemand) loaded.add(file.path)
    for (const rule of discovery.onRequest) (rule.activation === 'manual' ? manual : loaded).add(rule.path)
  }
  for (const path of loaded) manual.delete(path)
  return { loaded, manual }
}

/** Rule files of a convention's directory that no mode loads by itself. */
function rulesNeverLoaded(
  rules: readonly RuleFile[],
  loaded: ReadonlySet<string>,
  manual: ReadonlySet<string>,
  root: string,
): NeverLoaded[] {
  const out: NeverLoaded[] = []
  for (const rule of rules) {
    if (loaded.has(rule.path)) continue
    const shown = rel(root, rule.path)
    const { tool, dir, ext } = rule.convention
    // A Copilot file with `applyTo` as a list or an `excludeAgent` has a finding of its own (or reaches code review).
    const copilotOwn =
      tool === 'Copilot' && (Array.isArray(rule.data.applyTo) || rule.data.excludeAgent !== undefined)
    if (manual.has(rule.path))
      out.push({
        path: rule.path,
        shown,
        reason: 'manual-only',
        tool,
        message: `${shown} never loads by itself in any mode: ${tool} applies it only when named by hand; give it an activation (always, globs or a description) or delete it`,
      })
    else if (!rule.named)
      out.push({
        path: rule.path,
        shown,
        reason: 'wrong-extension',
        tool,
        message: `${shown} is loaded by no mode: ${tool} reads only *${ext} files in ${dir}/; rename it to ${shown.replace(/\.mdc?$/, ext)}`,
      })
    else if (!copilotOwn)
      out.push({
        path: rule.path,
        shown,
        reason: 'wrong-front-matter',
        tool,
        message: `${shown} is loaded by no mode: its front matter gives ${tool} no activation it acts on; rename or move it, or fix its front matter`,
      })
  }
  return out
}

/** Whether an `.mdc` file is meant for Cursor: it sits in a `.cursor/` directory, or its front matter has Cursor's keys. */
async function cursorRule(root: string, path: string, at: string): Promise<boolean> {
  if (/(^|\/)\.cursor(\/|$)/.test(at)) return true
  const text = await readSmall(root, path, READ_LIMIT)
  if (text === undefined) return false
  const { data } = readRule(text, path)
  return 'alwaysApply' in data || 'globs' in data
}

/** Cursor's rule files (`.mdc`) outside any `.cursor/rules/` directory, and instruction names in the wrong case. */
async function strays(
  dirs: readonly string[],
  loaded: ReadonlySet<string>,
  root: string,
): Promise<NeverLoaded[]> {
  const out: NeverLoaded[] = []
  const byLower = new Map(INSTRUCTION_NAMES.filter((n) => !n.includes('/')).map((n) => [n.toLowerCase(), n]))
  for (const dir of dirs) {
    if (!isInside(root, dir)) continue
    let names: string[]
    try {
      names = (await readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isFile() || e.isSymbolicLink())
        .map((e) => e.name)
        .sort()
    } catch {
      continue
    }
    const at = rel(root, dir)
    for (const name of names) {
      const path = join(dir, name)
      if (loaded.has(path)) continue
      const shown = at === '' ? name : `${at}/${name}`
      if (
        name.endsWith('.mdc') &&
        !/(^|\/)\.cursor\/rules(\/|$)/.test(at) &&
        (await cursorRule(root, path, at))
      )
        out.push({
          path,
          shown,
          reason: 'misplaced',
          tool: 'Cursor',
          message: `${shown} is loaded by no mode: Cursor reads .mdc rules only inside a .cursor/rules/ directory; move it to ${/(^|\/)\.cursor$/.test(at) ? `${at}/rules` : '.cursor/rules'}/${name}`,
        })
      // Only at the root: a `docs/agents.md` is as likely a page about agents as a misspelt AGENTS.md.
      const meant = dir === root ? byLower.get(name.toLowerCase()) : undefined
      if (meant !== undefined && meant !== name)
        out.push({
          path,
          shown,
          reason: 'misnamed',
          tool: null,
          message: `${shown} is loaded by no mode: harnesses read ${meant}, spelled exactly so; rename it to ${meant}`,
        })
    }
  }
  return out
}

/**
 * Instruction-like files no harness reads, by path: rule files of a
 * convention that its tool skips (wrong extension, no activation, manual
 * only), `.mdc` files outside `.cursor/rules/`, and instruction file names
 * in the wrong case. `dirs` are the directories to look in for strays (the
 * root and those below it that discovery walks).
 */
export async function neverLoaded(
  rules: readonly RuleFile[],
  loads: readonly HarnessLoad[],
  root: string,
  dirs: readonly string[],
): Promise<NeverLoaded[]> {
  const { loaded, manual } = loadedPaths(loads)
  const found = [...rulesNeverLoaded(rules, loaded, manual, root), ...(await strays(dirs, loaded, root))]
  return found.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0))
}
