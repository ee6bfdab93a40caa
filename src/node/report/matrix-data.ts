import { LineCounter } from '../../shared/line-counter.js'
import { groupDigits } from '../instructions/budget.js'
import type { InstructionMode } from '../instructions/discovery-options.js'
import { COPILOT_REVIEW_CHARS } from '../instructions/modes/copilot.js'
import { WINDSURF_RULE_CHARS } from '../instructions/modes/windsurf.js'
import { shown } from '../project/paths.js'
import { type HarnessLoad, textsFor } from './harness-loads.js'

/** A cut a harness makes: which file, where the model stops reading, how much is lost, under which rule. */
export interface MatrixCut {
  file: string
  line?: number
  omitted?: number
  rule: string
}

/** One row: a harness and a working path (`null`: the session start, no path). */
export interface MatrixRow {
  path: string | null
  /** Files loaded at start (shown relative to the root), the same in every row of the harness. */
  start: string[]
  /** Files loaded for this path (late-bound). */
  forPath: string[]
  tokens: { start: number; path: number; total: number }
  cut: MatrixCut[]
  /** Rules that fire: rule files loaded at start (start row) or for the path. */
  fires: string[]
}

/** One harness: its summary and its rows. */
export interface MatrixHarness {
  mode: InstructionMode
  summary: string
  /** The harness's documented budget, in words, when it has one. */
  budget: string | null
  onDemand: number
  onRequest: { file: string; activation: string }[]
  rows: MatrixRow[]
}

/** The documented budget of each harness that has one, in words. */
const BUDGETS: Partial<Record<InstructionMode, string>> = {
  sysprompt: '32 KiB, nearest-first, visible cut',
  codex: '32 KiB project_doc_max_bytes, root first, silent cut',
  copilot: `code review reads ${groupDigits(COPILOT_REVIEW_CHARS)} characters of a file`,
  windsurf: `${groupDigits(WINDSURF_RULE_CHARS)} characters a rule file`,
}

/** Rule directories of every convention: a file under one of them is a rule. */
const RULE_DIR =
  /(^|\/)(\.cursor\/rules|\.windsurf\/rules|\.clinerules|\.cline\/rules|\.kiro\/steering|\.continue\/rules|\.github\/instructions|\.claude\/rules)\//

/** Whether a file (shown relative to the root) is a rule of some convention. */
export function isRuleFile(file: string): boolean {
  return RULE_DIR.test(file)
}

function plural(n: number, word: string): string {
  return `${groupDigits(n)} ${word}${n === 1 ? '' : 's'}`
}

/** The rows of every harness, one per working path (or one start row without paths), summaries first. */
export function matrixData(
  loads: readonly HarnessLoad[],
  root: string,
  paths: readonly string[],
): MatrixHarness[] {
  return loads.map((load) => {
    const { discovery, mode } = load
    const see = (path: string) => shown(path, root)
    const start = discovery.files
      .filter((f) => discovery.spans.some((s) => s.path === f.path))
      .map((f) => see(f.path))
    const startTokens = discovery.harness.parts
      .filter((p) => p.placement !== 'tool-result')
      .reduce((sum, p) => sum + p.tokens, 0)
    const ownCuts = harnessCuts(load, root)
    const rows = (paths.length === 0 ? [undefined] : paths).map((path): MatrixRow => {
      const late = path === undefined ? [] : discovery.lateBound.filter((f) => f.loadedFor.includes(path))
      const pathTokens = late.reduce((sum, f) => sum + f.tokens, 0)
      return {
        path: path === undefined ? null : see(path),
        start,
        forPath: late.map((f) => see(f.path)),
        tokens: { start: startTokens, path: pathTokens, total: startTokens + pathTokens },
        cut: [...ownCuts, ...reviewCuts(load, root, path)],
        fires: path === undefined ? start.filter(isRuleFile) : late.map((f) => see(f.path)),
      }
    })
    const budget = BUDGETS[mode] ?? null
    const onRequest = discovery.onRequest.map((r) => ({ file: see(r.path), activation: r.activation }))
    const parts = [
      `${plural(start.length, 'file')} at start, ${plural(startTokens, 'token')}`,
      `${groupDigits(discovery.onDemand.length)} on demand`,
      `${groupDigits(onRequest.length)} on request`,
    ]
    const cut = ownCuts.length > 0 ? `; cuts ${ownCuts.map((c) => c.file).join(', ')}` : ''
    return {
      mode,
      summary: `${mode}: ${parts.join(', ')}${budget === null ? '' : `; budget: ${budget}`}${cut}`,
      budget,
      onDemand: discovery.onDemand.length,
      onRequest,
      rows,
    }
  })
}

/** The cuts a harness's own cap made at start, where its diagnostics place them. */
export function harnessCuts(load: HarnessLoad, root: string): MatrixCut[] {
  const cuts: MatrixCut[] = []
  for (const file of load.discovery.files) {
    if (!file.truncated) continue
    const said = load.discovery.diagnostics.find(
      (d) => d.path === file.path && (d.code === 'truncated' || d.code === 'silently-truncated'),
    )
    cuts.push({
      file: shown(file.path, root),
      ...(said?.site === undefined ? {} : { line: said.site.line }),
      rule: BUDGETS[load.mode] ?? 'the byte cap asked for',
    })
  }
  return cuts
}

/** Copilot code review reads the first 4 000 characters of each instruction file under `.github/`: where that cut falls. */
function reviewCuts(load: HarnessLoad, root: string, path: string | undefined): MatrixCut[] {
  if (load.mode !== 'copilot') return []
  const { text, spans } = load.discovery
  return textsFor(load, path)
    .map((t) => {
      // A file's span stops before the line break that ends its block: count it, as the reviewer reads the file.
      const span = t.when === 'start' ? spans.find((s) => s.path === t.path) : undefined
      return span !== undefined && text[span.end] === '\n' ? { ...t, text: `${t.text}\n` } : t
    })
    .filter((t) => shown(t.path, root).startsWith('.github/') && t.text.length > COPILOT_REVIEW_CHARS)
    .map((t) => ({
      file: shown(t.path, root),
      line: new LineCounter(t.text).at(COPILOT_REVIEW_CHARS).line,
      omitted: t.text.length - COPILOT_REVIEW_CHARS,
      rule: BUDGETS.copilot!,
    }))
}
