import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { nodeYaml } from '../../front-matter-yaml.js'
import { isInside } from '../../safe-read.js'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { isRefusal, loadFile } from '../read.js'

/** Directories visited at most while looking for skills: past it the section is not reproduced. */
const SKILL_DIR_LIMIT = 500
/** Ignore files honoured in skill directories (pi 1.6.0 `core/package-manager`). */
const IGNORE_FILES = ['.gitignore', '.ignore', '.fdignore']

/** One skill as pi lists it. */
interface Skill {
  name: string
  description: string
  path: string
  /** `disable-model-invocation: true`: loaded (its name taken) but not listed. */
  hidden: boolean
}

/** A skill directory and how pi reads it: `pi` takes `.md` files at its top, `agents` those below it. */
interface Place {
  dir: string
  kind: 'pi' | 'agents'
}

/**
 * pi 1.x's `<skills>` section (1.6.0: `core/package-manager`
 * `collectSkillEntries`, `core/skills` `loadSkillFromFile` and
 * `formatSkillsForPrompt`), in pi's order: in a trusted project
 * `.pi/skills`, then `.agents/skills` from cwd up to the git root; then
 * `~/.pi/agent/skills` and `~/.agents/skills`. In each directory (names
 * in byte order, dot-names and `node_modules` passed over, `.gitignore`,
 * `.ignore` and `.fdignore` honoured) a `SKILL.md` makes the directory one
 * skill; otherwise its subdirectories are searched, and `.md` files count
 * at the top of a `pi` directory and below the top of an `agents` one. A
 * skill needs a `description` in its front matter; its name is the front
 * matter's `name`, else its directory's name; the first of a name (and of
 * a real path) wins. Skills named in settings or packages are not
 * modelled. `undefined` when pi lists none; `unmodelled` when the search
 * went past its bound.
 */
export async function piSkillsSection(
  context: DiscoveryContext,
  trusted: boolean,
): Promise<{ text: string; skills: string[] } | 'unmodelled' | undefined> {
  const userAgents = join(context.home, '.agents', 'skills')
  const places: Place[] = []
  if (trusted) {
    places.push({ dir: join(context.cwd, '.pi', 'skills'), kind: 'pi' })
    const top = context.gitRoot ?? context.fsRoot
    for (const dir of dirsDown(top, context.cwd).reverse()) {
      const place = join(dir, '.agents', 'skills')
      if (place !== userAgents) places.push({ dir: place, kind: 'agents' })
    }
  }
  places.push({ dir: join(context.home, '.pi', 'agent', 'skills'), kind: 'pi' })
  places.push({ dir: userAgents, kind: 'agents' })
  const budget = { dirs: SKILL_DIR_LIMIT }
  const files: string[] = []
  for (const place of places) {
    const found = await entries(context, place, place.dir, ignore(), budget)
    for (const f of found) if (!files.includes(f)) files.push(f)
  }
  if (budget.dirs < 0) return 'unmodelled'
  const skills: Skill[] = []
  const reals = new Set<string>()
  for (const path of files) {
    const skill = await readSkill(context, path)
    if (skill === undefined) continue
    const real = await context.fs.realpath(path).catch(() => path)
    if (reals.has(real) || skills.some((s) => s.name === skill.name)) continue
    reals.add(real)
    skills.push(skill)
  }
  const listed = skills.filter((s) => !s.hidden)
  if (listed.length === 0) return undefined
  const lines = [
    'The following skills provide specialized instructions for specific tasks.',
    "Use the read tool to load a skill's file when the task matches its description.",
    "Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.",
    '',
    '<available_skills>',
    ...listed.flatMap((s) => [
      '  <skill>',
      `    <name>${xml(s.name)}</name>`,
      `    <description>${xml(s.description)}</description>`,
      `    <location>${xml(s.path)}</location>`,
      '  </skill>',
    ]),
    '</available_skills>',
  ]
  return { text: lines.join('\n'), skills: listed.map((s) => s.path) }
}

/** The skill files under `dir` (below `place.dir`), in pi's order. */
async function entries(
  context: DiscoveryContext,
  place: Place,
  dir: string,
  ig: Ignore,
  budget: { dirs: number },
): Promise<string[]> {
  if (--budget.dirs < 0) return []
  let listed: Dirent[]
  try {
    listed = await readdir(dir, { withFileTypes: true })
  } catch {
    return []
  }
  listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  await addIgnoreRules(context, ig, dir, place.dir)
  const rel = (path: string) => relative(place.dir, path).split(sep).join('/')
  for (const entry of listed) {
    if (entry.name !== 'SKILL.md') continue
    const path = join(dir, entry.name)
    if ((await kindOf(context, entry, path)) === 'file' && !ig.ignores(rel(path))) return [path]
  }
  const found: string[] = []
  for (const entry of listed) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
    const path = join(dir, entry.name)
    const kind = await kindOf(context, entry, path)
    const atTop = dir === place.dir
    if (
      kind === 'file' &&
      entry.name.endsWith('.md') &&
      !ig.ignores(rel(path)) &&
      (place.kind === 'pi' ? atTop : !atTop)
    ) {
      found.push(path)
      continue
    }
    if (kind !== 'directory' || ig.ignores(`${rel(path)}/`)) continue
    found.push(...(await entries(context, place, path, ig, budget)))
  }
  return found
}

async function kindOf(context: DiscoveryContext, entry: Dirent, path: string): Promise<string | undefined> {
  if (!entry.isSymbolicLink()) return entry.isFile() ? 'file' : entry.isDirectory() ? 'directory' : 'other'
  return (await context.fs.stat(path).catch(() => undefined))?.kind
}

/** A directory's ignore files, their patterns made relative to the skill directory (pi's `prefixIgnorePattern`). */
async function addIgnoreRules(
  context: DiscoveryContext,
  ig: Ignore,
  dir: string,
  root: string,
): Promise<void> {
  const at = relative(root, dir).split(sep).join('/')
  const prefix = at === '' ? '' : `${at}/`
  for (const name of IGNORE_FILES) {
    const read = await readText(context, join(dir, name))
    if (read === undefined) continue
    const patterns: string[] = []
    for (const line of read.split(/\r?\n/)) {
      const trimmed = line.trim()
      if (trimmed === '' || (trimmed.startsWith('#') && !trimmed.startsWith('\\#'))) continue
      let pattern = line
      let negated = false
      if (pattern.startsWith('!')) {
        negated = true
        pattern = pattern.slice(1)
      } else if (pattern.startsWith('\\!')) pattern = pattern.slice(1)
      if (pattern.startsWith('/')) pattern = pattern.slice(1)
      patterns.push(`${negated ? '!' : ''}${prefix}${pattern}`)
    }
    if (patterns.length > 0) ig.add(patterns)
  }
}

/** A file's text through the confined reader (its own directory, or the project); `undefined` when absent or refused. */
async function readText(context: DiscoveryContext, path: string): Promise<string | undefined> {
  const roots = isInside(context.root, path) ? [context.root] : [dirname(path)]
  const read = await loadFile(context, path, roots, context.denyList)
  return isRefusal(read) ? undefined : read.text
}

/** A skill as `loadSkillFromFile` reads it: front matter with a description, else none. */
async function readSkill(context: DiscoveryContext, path: string): Promise<Skill | undefined> {
  const text = await readText(context, path)
  if (text === undefined) return undefined
  const normalized = text.replace(/\r\n/g, '\n').replace(/\r/g, '\n')
  if (!normalized.startsWith('---')) return undefined
  const end = normalized.indexOf('\n---', 3)
  if (end === -1) return undefined
  let data: unknown
  try {
    data = nodeYaml().parse(normalized.slice(4, end))
  } catch {
    return undefined
  }
  const fields = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>
  const description = fields.description
  if (typeof description !== 'string' || description.trim() === '') return undefined
  const name = typeof fields.name === 'string' && fields.name !== '' ? fields.name : basename(dirname(path))
  return { name, description, path, hidden: fields['disable-model-invocation'] === true }
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}
