import { INSTRUCTION_MODES, type InstructionMode } from '../instructions/discovery-options.js'
import { shown } from '../project/paths.js'
import { isInside } from '../safe-read.js'
import type { HarnessLoad } from './harness-loads.js'
import { harnessCuts, type MatrixCut } from './matrix-data.js'
import type { Skill } from './skills.js'

/**
 * The first screen of `inspect` (issue 31): one line per harness in use in
 * the repository, and one for the AGENTS.md files that many harnesses read.
 * A harness is in use when it loads a file of the project that only it
 * reads (CLAUDE.md, GEMINI.md, `.cursor/rules/…`); the harnesses that load
 * an AGENTS.md and nothing of their own share a line naming them all.
 */

/** Files of the project that only this harness reads (shown paths, relative to the root). */
const OWN_FILES: Partial<Record<InstructionMode, RegExp>> = {
  claude: /(^|\/)(CLAUDE(\.local)?\.md|\.claude\/.+)$/,
  gemini: /(^|\/)(GEMINI\.md|\.gemini\/.+)$/,
  codex: /(^|\/)AGENTS\.override\.md$/,
  pi: /(^|\/)\.pi\/.+$/,
  opencode: /(^|\/)\.opencode\/.+$/,
  copilot: /^\.github\/(copilot-instructions\.md|instructions\/.+)$/,
  cursor: /(^|\/)(\.cursorrules|\.cursor\/rules\/.+)$/,
  windsurf: /(^|\/)(\.windsurfrules|\.windsurf\/.+)$/,
  cline: /(^|\/)\.clinerules(\/.+)?$/,
  kiro: /(^|\/)\.kiro\/.+$/,
  continue: /(^|\/)\.continue\/.+$/,
  zed: /(^|\/)\.rules$/,
  junie: /(^|\/)\.junie\/.+$/,
}

/** The files every harness that reads shared instructions may load. */
const SHARED = /(^|\/)AGENTS?\.md$/

/** One line of the first screen: a harness (or the readers of AGENTS.md) and what it loads here. */
export interface HarnessInUse {
  /** The harness (`claude`), or `AGENTS.md` for the line of the harnesses that read only that. */
  label: string
  /** The harnesses the line is about (one, or the readers of AGENTS.md). */
  modes: InstructionMode[]
  /** The project's files that show the harness in use (shown paths), at most a few. */
  because: string[]
  /**
   * Files loaded at start (after the harness's own cut) and the tokens of
   * their text as the harness sends it (its framing aside); on the AGENTS.md
   * line, the least and the most among its readers.
   */
  start: { files: number; filesMax: number; tokens: number; tokensMax: number }
  /** What the harness's own budget cuts at start, and which harness cuts it (on the AGENTS.md line, one of its readers). */
  cut: (MatrixCut & { by: InstructionMode })[]
  /** Files loaded later, when the agent works near them, and their tokens (the AGENTS.md line: the most among its readers). */
  onDemand: { files: number; tokens: number }
  /** Rules the agent or the user asks for by name or description. */
  onRequest: number
  /** Skills it lists: how many, their names and descriptions at start, their bodies when used. */
  skills: { count: number; startTokens: number; bodyTokens: number }
}

/** What one harness loads in the project, summed. */
function summary(load: HarnessLoad, root: string, skills: readonly Skill[], count: (text: string) => number) {
  const { discovery, mode } = load
  const start = discovery.files.filter((f) => discovery.spans.some((s) => s.path === f.path))
  const tokens = discovery.spans.reduce((sum, s) => sum + count(discovery.text.slice(s.start, s.end)), 0)
  const own = skills.filter((s) => s.readers.includes(mode))
  return {
    start: start.length,
    tokens,
    cut: harnessCuts(load, root).map((c) => ({ ...c, by: mode })),
    onDemand: {
      files: discovery.onDemand.length,
      tokens: discovery.onDemand.reduce((sum, f) => sum + f.tokens, 0),
    },
    onRequest: discovery.onRequest.length,
    skills: {
      count: own.length,
      startTokens: own.reduce((sum, s) => sum + s.startTokens, 0),
      bodyTokens: own.reduce((sum, s) => sum + s.bodyTokens, 0),
    },
  }
}

/** Every file of the project a harness loads, at start, later or on request (shown paths). */
function projectFiles(load: HarnessLoad, root: string): string[] {
  const { discovery } = load
  const paths = [
    ...discovery.files.map((f) => f.path),
    ...discovery.onDemand.map((f) => f.path),
    ...discovery.onRequest.map((r) => r.path),
  ]
  return [...new Set(paths.filter((p) => isInside(root, p)).map((p) => shown(p, root)))]
}

/** At most `n` names, then how many more. */
function some(names: readonly string[], n = 3): string[] {
  return names.length <= n ? [...names] : [...names.slice(0, n), `+${names.length - n} more`]
}

/**
 * The harnesses in use in the project, in the order of `INSTRUCTION_MODES`,
 * then one line for the harnesses that read AGENTS.md and nothing of their
 * own (sysprompt's own mode is the detail below the first screen, not a line).
 */
export function harnessesInUse(
  loads: readonly HarnessLoad[],
  root: string,
  skills: readonly Skill[],
  count: (text: string) => number,
): HarnessInUse[] {
  const lines: HarnessInUse[] = []
  const shared: { load: HarnessLoad; files: string[] }[] = []
  const order = (m: InstructionMode) => INSTRUCTION_MODES.indexOf(m)
  for (const load of [...loads].sort((a, b) => order(a.mode) - order(b.mode))) {
    if (load.mode === 'sysprompt') continue
    const files = projectFiles(load, root)
    const pattern = OWN_FILES[load.mode]
    // A skill in the harness's own directory (`.claude/skills`) shows it in use as much as a rule file does.
    const candidates = [...files, ...skills.filter((s) => s.readers.includes(load.mode)).map((s) => s.shown)]
    const own = pattern === undefined ? [] : candidates.filter((f) => pattern.test(f))
    if (own.length > 0) {
      const s = summary(load, root, skills, count)
      lines.push({
        label: load.mode,
        modes: [load.mode],
        because: some(own),
        start: { files: s.start, filesMax: s.start, tokens: s.tokens, tokensMax: s.tokens },
        cut: s.cut,
        onDemand: s.onDemand,
        onRequest: s.onRequest,
        skills: s.skills,
      })
    } else if (files.some((f) => SHARED.test(f))) shared.push({ load, files })
  }
  // Every reader of AGENTS.md shares one line; where they differ (nested files at start or later), the figures are ranges.
  if (shared.length > 0) {
    const sums = shared.map((g) => summary(g.load, root, skills, count))
    const lo = (f: (x: (typeof sums)[number]) => number) => Math.min(...sums.map(f))
    const hi = (f: (x: (typeof sums)[number]) => number) => Math.max(...sums.map(f))
    const cut = sums
      .flatMap((x) => x.cut)
      .filter((c, i, all) => all.findIndex((d) => d.file === c.file) === i)
    lines.push({
      label: 'AGENTS.md',
      modes: shared.map((g) => g.load.mode),
      because: some([...new Set(shared.flatMap((g) => g.files.filter((f) => SHARED.test(f))))].sort()),
      start: {
        files: lo((x) => x.start),
        filesMax: hi((x) => x.start),
        tokens: lo((x) => x.tokens),
        tokensMax: hi((x) => x.tokens),
      },
      cut,
      onDemand: { files: hi((x) => x.onDemand.files), tokens: hi((x) => x.onDemand.tokens) },
      onRequest: hi((x) => x.onRequest),
      skills: sums.reduce((best, x) => (x.skills.count > best.count ? x.skills : best), sums[0]!.skills),
    })
  }
  return lines
}
