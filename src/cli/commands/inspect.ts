import type { Command } from 'commander'
import { groupDigits } from '../../node/index.js'
import { buildProject } from '../../node/project/project.js'
import type { Stability } from '../../registry/index.js'
import { type CommandContext, examples, printer } from '../command.js'
import { EXIT } from '../errors.js'
import { addPromptOptions, type RawOptions, readPromptOptions } from '../options.js'
import { bar, type Cell, json, type Paint, percent, type Tone, table } from '../output.js'
import { requireCompiled } from '../require-compiled.js'
import { type InspectData, type InspectedFile, inspectData } from './inspect-data.js'
import { buildWarnings } from './show.js'

const BAR_CELLS = 24
const STABILITY_TONE: Record<Stability, Tone> = { static: 'green', session: 'yellow', turn: 'red' }

const hashPrefix = (hash: string) => hash.replace(/^sha256:/, '').slice(0, 8)
const indent = (lines: string[]) => lines.map((l) => `  ${l}`)

function sectionLines(data: InspectData, paint: Paint): string[] {
  const rows: (Cell | string)[][] = [
    ['#', 'section', 'order', 'stability', 'bytes', 'tokens', 'share', 'hash', ''].map((text) => ({
      text,
      tone: 'bold' as const,
    })),
  ]
  for (const s of data.sections) {
    const tone = STABILITY_TONE[s.stability]
    rows.push([
      String(s.index),
      s.name,
      String(s.order),
      { text: s.stability, tone },
      groupDigits(s.bytes),
      groupDigits(s.tokens),
      percent(s.tokens, data.totals.tokens),
      { text: hashPrefix(s.hash), tone: 'dim' },
      { text: bar(s.share, BAR_CELLS), tone },
    ])
  }
  rows.push([
    '',
    { text: 'total', tone: 'bold' },
    '',
    '',
    groupDigits(data.totals.bytes),
    groupDigits(data.totals.tokens),
    data.totals.tokens === 0 ? '' : '100.0%',
    { text: hashPrefix(data.hash), tone: 'dim' },
    '',
  ])
  return indent(
    table(rows, ['right', 'left', 'right', 'left', 'right', 'right', 'right', 'left', 'left'], paint),
  )
}

function fileRows(files: readonly InspectedFile[], depth: number, rows: (Cell | string)[][]): void {
  for (const f of files) {
    rows.push([
      `${depth === 0 ? '' : `${'  '.repeat(depth - 1)}└ `}${f.shown}${depth === 0 ? '' : ' (imported)'}`,
      groupDigits(f.bytes),
      f.tokens === null ? '' : groupDigits(f.tokens),
      f.truncated ? { text: 'truncated', tone: 'yellow' } : 'whole',
    ])
    fileRows(f.imports, depth + 1, rows)
  }
}

function render(data: InspectData, paint: Paint): string {
  const h = (text: string) => paint('bold', text)
  const out: string[] = []
  const what =
    data.prompt.kind === 'template'
      ? `${data.prompt.file}${data.prompt.builtin ? ' (built in)' : ''}, ${data.prompt.dialect} dialect`
      : `--preset ${data.prompt.preset}`
  out.push(`${h('root')}      ${data.root}`)
  out.push(`${h('cwd')}       ${data.cwd}`)
  out.push(`${h('template')}  ${what}`)
  out.push(
    `${h('prompt')}    ${groupDigits(data.totals.tokens)} tokens (${data.tokenizer}), ${groupDigits(data.totals.bytes)} bytes, ` +
      `${data.totals.sections} section${data.totals.sections === 1 ? '' : 's'}, ${data.totals.tools} tool${data.totals.tools === 1 ? '' : 's'}`,
  )
  out.push(
    '',
    h('Sections'),
    ...(data.sections.length === 0 ? ['  (the prompt is empty)'] : sectionLines(data, paint)),
  )
  out.push('', h('Tools'))
  if (data.tools.length === 0) out.push('  (none; pass --tools FILE to include tool schemas)')
  else {
    const rows: (Cell | string)[][] = [
      ['tool', 'tokens (schema)', 'hash'].map((text) => ({ text, tone: 'bold' as const })),
    ]
    for (const t of data.tools)
      rows.push([t.name, `≈${groupDigits(t.tokens)}`, { text: hashPrefix(t.hash), tone: 'dim' }])
    out.push(...indent(table(rows, ['left', 'right', 'left'], paint)))
  }
  out.push('', h(`Instruction files (${data.instructions.mode} mode, preload ${data.instructions.preload})`))
  if (data.instructions.files.length === 0) out.push('  (none found)')
  else {
    const rows: (Cell | string)[][] = [
      ['file', 'bytes', 'tokens', ''].map((text) => ({ text, tone: 'bold' as const })),
    ]
    fileRows(data.instructions.files, 0, rows)
    out.push(...indent(table(rows, ['left', 'right', 'right', 'left'], paint)))
  }
  for (const d of data.instructions.diagnostics) out.push(`  ${paint('yellow', '!')} ${d.message}`)
  if (data.rules.length > 0) {
    out.push('', h('Rules (.sysprompt/rules)'))
    const rows: (Cell | string)[][] = data.rules.map((r) => [
      r.id,
      r.applies ? { text: 'in', tone: 'green' } : { text: 'out', tone: 'dim' },
      r.why,
    ])
    out.push(...indent(table(rows, ['left', 'left', 'left'], paint)))
  }
  const { cache, stablePrefix } = data
  out.push(
    '',
    h(
      `Cache (${cache.provider}${cache.model === null ? '' : `, ${cache.model}`}, minimum ${groupDigits(cache.minTokens)} tokens)`,
    ),
  )
  const through = (s: string | null) => (s === null ? 'empty' : `through ${s}`)
  out.push(
    `  static prefix            ${groupDigits(stablePrefix.static.tokens)} tokens, ${through(stablePrefix.static.through)}`,
  )
  out.push(
    `  static + session prefix  ${groupDigits(stablePrefix.session.tokens)} tokens, ${through(stablePrefix.session.through)}`,
  )
  out.push(
    `  breakpoints              ${cache.breakpoints.length === 0 ? 'none' : cache.breakpoints.map((b) => `after ${b.section} (char ${b.at})`).join(', ')}`,
  )
  out.push(`  cacheable                ${groupDigits(cache.cacheableTokens)} tokens`)
  for (const w of cache.warnings) out.push(`  ${paint('yellow', '!')} ${w.message}`)
  if (data.warnings.length > 0) {
    out.push('', h('Warnings'))
    for (const w of data.warnings) out.push(`  ${paint('yellow', '!')} ${w.message}`)
  }
  return `${out.join('\n')}\n`
}

/** `sysprompt inspect`: where the prompt's tokens go, what it is made of, and what its cache can reuse. */
export function registerInspect(program: Command, ctx: CommandContext): void {
  addPromptOptions(
    program
      .command('inspect')
      .description('show sections, tokens, tools, instruction files and the cache plan'),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt inspect', 'the current project'],
        ['sysprompt inspect --cwd examples/sample-project/packages/api', 'a package of a monorepo'],
        ['sysprompt inspect --provider openai --model gpt-5', 'cache plan for OpenAI'],
        ['sysprompt inspect --mode claude', 'instruction files as Claude Code finds them'],
        ['sysprompt inspect --json | jq .sections', 'the same as data'],
      ]),
    )
    .action(async (raw: RawOptions) => {
      const options = await readPromptOptions(raw, ctx.io.cwd)
      const print = printer(ctx, options.color)
      const project = await buildProject(options, ctx.io.env)
      const compiled = requireCompiled(project)
      const data = await inspectData(project, compiled)
      if (options.json) print.out(json(data))
      else {
        for (const warning of buildWarnings(project).filter(
          (w) => !compiled.warnings.some((c) => c.message === w),
        ))
          print.warn(warning)
        print.out(render(data, print.paint))
      }
      ctx.exit(EXIT.ok)
    })
}
