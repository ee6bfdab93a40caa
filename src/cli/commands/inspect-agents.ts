import { groupDigits } from '../../node/index.js'
import type { InspectData } from '../../node/report/inspect-data.js'
import { type Cell, type Paint, paragraph, table } from '../output.js'

/**
 * The first screen of `inspect` (issue 31): a line per harness in use here
 * and per group of AGENTS.md readers, the project's skills, and the
 * instruction-like files no harness reads.
 */

type Agents = { [K in 'harnesses' | 'skills' | 'neverLoaded']: NonNullable<InspectData[K]> }
type Line = Agents['harnesses'][number]

const count = (n: number, word: string) => `${groupDigits(n)} ${word}${n === 1 ? '' : 's'}`

function tokenRange(line: Line): string {
  const { tokens, tokensMax } = line.start
  return tokens === tokensMax
    ? count(tokens, 'token')
    : `${groupDigits(tokens)}–${groupDigits(tokensMax)} tokens`
}

/** What one line says: files at start, tokens, what is cut, what waits for later. */
function describe(line: Line): string {
  const { files, filesMax } = line.start
  const started =
    files === filesMax ? count(files, 'file') : `${groupDigits(files)}–${groupDigits(filesMax)} files`
  const parts = [`${started} at start, ${tokenRange(line)}`]
  parts.push(
    line.cut.length === 0
      ? 'nothing cut'
      : line.cut
          .map((c) => {
            const at = `${c.file}${c.line === undefined ? '' : ` at line ${groupDigits(c.line)}`}`
            return line.modes.length > 1 ? `${c.by} cuts ${at}` : `cuts ${at}`
          })
          .join(', '),
  )
  if (line.onDemand.files > 0)
    parts.push(
      `${line.label === 'AGENTS.md' ? 'up to ' : ''}${groupDigits(line.onDemand.files)} on demand (${count(line.onDemand.tokens, 'token')})`,
    )
  if (line.onRequest > 0) parts.push(`${groupDigits(line.onRequest)} on request`)
  if (line.skills.count > 0)
    parts.push(
      `${count(line.skills.count, 'skill')} (${groupDigits(line.skills.startTokens)} tokens at start, ${groupDigits(line.skills.bodyTokens)} when used)`,
    )
  const readers = line.label === 'AGENTS.md' ? `read by ${line.modes.join(', ')}: ` : ''
  return `${readers}${parts.join('; ')} (${line.because.join(', ')})`
}

/** The first screen, as lines of text for a terminal `columns` wide. */
export function agentLines(data: Agents, paint: Paint, columns: number): string[] {
  const h = (text: string) => paint('bold', text)
  const out: string[] = [h('Agents in this repository (sysprompt inspect --mode NAME for one in detail)')]
  if (data.harnesses.length === 0)
    out.push(
      ...paragraph(
        'no agent reads instruction files here (AGENTS.md, CLAUDE.md, GEMINI.md, .cursor/rules, .github/copilot-instructions.md, …)',
        columns - 2,
      ).map((l) => `  ${l}`),
    )
  else {
    const rows: (Cell | string)[][] = data.harnesses.map((line) => [
      { text: line.label, tone: 'bold' },
      describe(line),
    ])
    out.push(...table(rows, ['left', 'left'], paint, columns - 2).map((l) => `  ${l}`))
  }
  if (data.skills.length > 0) {
    out.push('', h('Skills (name and description at start, the body when used)'))
    // Grouped by the harnesses that list them, so each row stays one line.
    const groups = new Map<string, typeof data.skills>()
    for (const s of data.skills) {
      const key = s.readers.join(', ')
      groups.set(key, [...(groups.get(key) ?? []), s])
    }
    const rows: (Cell | string)[][] = [
      ['skill', 'at start', 'when used'].map((text) => ({ text, tone: 'bold' as const })),
    ]
    for (const [readers, skills] of groups) {
      rows.push([{ text: `read by ${readers}`, tone: 'dim' }, '', ''])
      for (const s of skills)
        rows.push([`  ${s.shown}`, groupDigits(s.startTokens), groupDigits(s.bodyTokens)])
    }
    out.push(...table(rows, ['left', 'right', 'right'], paint).map((l) => `  ${l}`))
  }
  if (data.neverLoaded.length > 0) {
    out.push('', h('Never loaded (instruction-like files no harness reads)'))
    for (const f of data.neverLoaded)
      out.push(...paragraph(f.message, columns - 4, 2).map((l, i) => (i === 0 ? `  - ${l}` : `  ${l}`)))
  }
  return out
}
