import { readdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Tokenizer } from '../../compile/index.js'
import type { InstructionMode } from '../instructions/discovery-options.js'
import { readRule } from '../instructions/modes/convention.js'
import { isInside } from '../safe-read.js'
import { readSmall, rel } from './rule-files.js'

/**
 * Agent skills in the project (issue 31): each harness lists a skill's name
 * and description in its prompt at start and reads the body of `SKILL.md`
 * only when it uses the skill. Where each harness looks, from its own source
 * or documentation:
 *
 * - Claude Code: `.claude/skills/<name>/SKILL.md` (docs: "Agent Skills",
 *   project skills; nested `.claude/skills` of the directories it works in).
 * - Codex: `.agents/skills/<name>/SKILL.md` in every directory from cwd up
 *   to the repository root (developers.openai.com/codex/skills).
 * - Gemini CLI: `.gemini/skills` and `.agents/skills` of the workspace,
 *   `SKILL.md` or `*\/SKILL.md` (gemini-cli `skills/skillManager.ts`,
 *   `skillLoader.ts`; only in a trusted folder).
 * - opencode: `.opencode/skills`, `.claude/skills` and `.agents/skills`,
 *   `*\/SKILL.md`, from cwd up to the git worktree (opencode docs "Agent Skills").
 * - pi: none of the project's by default. pi 1.x lists a project's
 *   `.pi/skills` and `.agents/skills` only in a trusted project, and
 *   `--mode pi` shows the untrusted view, as pi runs without a saved
 *   decision (its harness view renders `<skills>` when trusted:
 *   `--harness-config trust=yes`).
 * - Copilot (VS Code): `.github/skills/<name>/SKILL.md` (VS Code "Agent
 *   Skills reference", project location).
 */

/** A skill directory's place, relative to a directory, and whether the harness looks in every directory from cwd to the root. */
interface SkillPlace {
  dir: string
  upward: boolean
}

/** Where each harness looks for project skills. */
export const SKILL_PLACES: Partial<Record<InstructionMode, readonly SkillPlace[]>> = {
  claude: [{ dir: '.claude/skills', upward: true }],
  codex: [{ dir: '.agents/skills', upward: true }],
  gemini: [
    { dir: '.gemini/skills', upward: false },
    { dir: '.agents/skills', upward: false },
  ],
  opencode: [
    { dir: '.opencode/skills', upward: true },
    { dir: '.claude/skills', upward: true },
    { dir: '.agents/skills', upward: true },
  ],
  copilot: [{ dir: '.github/skills', upward: false }],
}

/** Skill files read at most: a project with more is reported as far as this. */
const SKILL_LIMIT = 200
/** A SKILL.md larger than this is not read (its body is counted as unknown). */
const SKILL_BYTES = 256 * 1024

/** One skill: where it is, who reads it, and its tokens at start and on use. */
export interface Skill {
  name: string
  path: string
  shown: string
  description: string
  /** The harnesses that list it. */
  readers: InstructionMode[]
  /** Tokens of its name and description: what a harness lists at start (its own framing aside). */
  startTokens: number
  /** Tokens of the body of SKILL.md: read when the skill is used. */
  bodyTokens: number
}

/** The directories from `cwd` up to `root`, nearest first. */
function upward(cwd: string, root: string): string[] {
  const out: string[] = []
  for (let dir = cwd; isInside(root, dir); dir = dirname(dir)) {
    out.push(dir)
    if (dir === root || dirname(dir) === dir) break
  }
  return out
}

/** `SKILL.md` files of a skills directory: `<dir>/SKILL.md` and `<dir>/<name>/SKILL.md`. */
async function skillFiles(dir: string): Promise<string[]> {
  let entries: { name: string; isDirectory(): boolean }[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return []
  }
  const out: string[] = []
  if (entries.some((e) => e.name === 'SKILL.md' && !e.isDirectory())) out.push(join(dir, 'SKILL.md'))
  for (const e of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1)))
    if (e.isDirectory()) out.push(join(dir, e.name, 'SKILL.md'))
  return out
}

/** Every project skill some harness of `modes` lists, once per file, with its readers. */
export async function findSkills(
  modes: readonly InstructionMode[],
  cwd: string,
  root: string,
  tokenizer: Pick<Tokenizer, 'count'>,
): Promise<Skill[]> {
  const readers = new Map<string, InstructionMode[]>()
  for (const mode of modes) {
    for (const place of SKILL_PLACES[mode] ?? []) {
      for (const base of place.upward ? upward(cwd, root) : [cwd]) {
        for (const file of await skillFiles(join(base, place.dir))) {
          if (readers.size >= SKILL_LIMIT && !readers.has(file)) break
          const list = readers.get(file) ?? []
          if (!list.includes(mode)) list.push(mode)
          readers.set(file, list)
        }
      }
    }
  }
  const out: Skill[] = []
  for (const [path, by] of readers) {
    const text = await readSmall(root, path, SKILL_BYTES)
    if (text === undefined) continue
    const { data, body } = readRule(text.replace(/^\uFEFF/, ''), path)
    const name = typeof data.name === 'string' ? data.name : rel(root, dirname(path)).split('/').pop()!
    const description = typeof data.description === 'string' ? data.description : ''
    out.push({
      name,
      path,
      shown: rel(root, path),
      description,
      readers: by,
      startTokens: tokenizer.count(`${name}: ${description}`),
      bodyTokens: tokenizer.count(body),
    })
  }
  return out.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0))
}
