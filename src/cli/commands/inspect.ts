import { type Command, Option } from 'commander'
import { groupDigits } from '../../node/index.js'
import { buildProject } from '../../node/project/project.js'
import { type InspectData, type InspectedFile, inspectData } from '../../node/report/inspect-data.js'
import type { Stability } from '../../registry/index.js'
import { cliAdvice } from '../advice.js'
import { type CommandContext, examples, printer } from '../command.js'
import { EXIT, UsageError } from '../errors.js'
import { addPromptOptions, type RawOptions, readPromptOptions } from '../options.js'
import {
  type Align,
  bar,
  type Cell,
  clip,
  json,
  list,
  type Paint,
  paragraph,
  percent,
  type Tone,
  table,
  terminalWidth,
  tokenLabel,
  width,
} from '../output.js'
import { requireCompiled } from '../require-compiled.js'
import { visible } from '../sanitize.js'
import { agentLines } from './inspect-agents.js'
import { buildWarnings } from './show.js'

/** The widest bar; bars shrink to what the terminal leaves, down to {@link MIN_BAR_CELLS}. */
const BAR_CELLS = 24
const MIN_BAR_CELLS = 4
/** Section names are clipped to this many characters at the least, when even the smallest bar does not fit. */
const MIN_NAME = 12
const STABILITY_TONE: Record<Stability, Tone> = { static: 'green', session: 'yellow', turn: 'red' }

const hashPrefix = (hash: string) => hash.replace(/^sha256:/, '').slice(0, 8)
const indent = (lines: string[]) => lines.map((l) => `  ${l}`)

function sectionLines(data: InspectData, paint: Paint, columns: number): string[] {
  const head = ['#', 'section', 'order', 'stability', 'bytes', 'tokens', 'share', 'hash', ''].map((text) => ({
    text,
    tone: 'bold' as const,
  }))
  const rowsWith = (barCells: number, nameMax: number): (Cell | string)[][] => {
    const rows: (Cell | string)[][] = [head]
    for (const s of data.sections) {
      const tone = STABILITY_TONE[s.stability]
      rows.push([
        String(s.index),
        clip(s.name, nameMax),
        String(s.order),
        { text: s.stability, tone },
        groupDigits(s.bytes),
        groupDigits(s.tokens),
        percent(s.tokens, data.totals.tokens),
        { text: hashPrefix(s.hash), tone: 'dim' },
        { text: bar(s.share, barCells), tone },
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
    return rows
  }
  const align: Align[] = ['right', 'left', 'right', 'left', 'right', 'right', 'right', 'left', 'left']
  // Everything but the bar, measured once; the bar takes what is left of the line (two for the indent).
  const plain = (rows: (Cell | string)[][]) => Math.max(...table(rows, align, (_, t) => t).map(width))
  const longest = Math.max(...data.sections.map((s) => width(visible(s.name))), 'section'.length)
  let nameMax = longest
  const fixed = plain(rowsWith(0, nameMax)) + 2 + 2
  let barCells = Math.min(BAR_CELLS, columns - fixed)
  if (barCells < MIN_BAR_CELLS) {
    // Not even the smallest bar fits: clip the names, then keep whatever bar is left.
    nameMax = Math.max(MIN_NAME, longest - (MIN_BAR_CELLS - barCells))
    barCells = Math.max(1, Math.min(BAR_CELLS, columns - (plain(rowsWith(0, nameMax)) + 2 + 2)))
  }
  return indent(table(rowsWith(barCells, nameMax), align, paint))
}

/** Whether `when` names the file's own directory (`when the agent works under a/b` for `a/b/CLAUDE.md`): said shorter. */
function sameDirectory(shown: string, when: string): boolean {
  const slash = shown.lastIndexOf('/')
  return slash > 0 && when === `when the agent works under ${shown.slice(0, slash)}`
}

function fileRows(files: readonly InspectedFile[], depth: number, rows: (Cell | string)[][]): void {
  for (const f of files) {
    rows.push([
      `${depth === 0 ? '' : `${'  '.repeat(depth - 1)}└ `}${f.shown}${depth === 0 ? '' : ' (imported)'}`,
      groupDigits(f.bytes),
      f.tokens === null ? '' : groupDigits(f.tokens),
      f.framingTokens === null ? '' : `+${groupDigits(f.framingTokens)}`,
      f.truncated ? { text: 'truncated', tone: 'yellow' } : 'whole',
    ])
    fileRows(f.imports, depth + 1, rows)
  }
}

function render(data: InspectData, paint: Paint, columns: number): string {
  const h = (text: string) => paint('bold', text)
  // A warning wrapped to the width, continuation lines under its text.
  const notice = (message: string) =>
    indent(
      table([[{ text: '!', tone: 'yellow' }, cliAdvice(message)]], ['left', 'left'], paint, columns - 2),
    ).map((l) => l.replace(/^ {2}! {2}/, `  ${paint('yellow', '!')} `).replace(/^ {5}/, '    '))
  const out: string[] = []
  const what =
    data.prompt.kind === 'template'
      ? `${data.prompt.file}${data.prompt.builtin ? ' (built in)' : ''}, ${data.prompt.dialect} dialect`
      : `--preset ${data.prompt.preset}`
  out.push(`${h('root')}      ${data.root}`)
  out.push(`${h('cwd')}       ${data.cwd}`)
  const { harnesses, skills, neverLoaded } = data
  if (harnesses !== null && skills !== null && neverLoaded !== null)
    out.push('', ...agentLines({ harnesses, skills, neverLoaded }, paint, columns), '')
  out.push(`${h('template')}  ${what}`)
  out.push(
    `${h('prompt')}    ${groupDigits(data.totals.tokens)} tokens, ${groupDigits(data.totals.bytes)} bytes, ` +
      `${data.totals.sections} section${data.totals.sections === 1 ? '' : 's'}, ${data.totals.tools} tool${data.totals.tools === 1 ? '' : 's'}`,
  )
  const unnamed = data.cache.providerFrom === 'none' && data.cache.model === null
  out.push(`${h('tokens')}    ${unnamed ? data.tokenizer : tokenLabel(data.tokenizer, data.cache.provider)}`)
  out.push(
    '',
    h('Sections'),
    ...(data.sections.length === 0 ? ['  (the prompt is empty)'] : sectionLines(data, paint, columns)),
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
  const profile = data.instructions.profile
  if (profile !== null)
    out.push(
      ...indent(
        paragraph(
          `profile: ${profile.mode} ${profile.version} (${profile.range}: ${profile.changes}; ${profile.observed})`,
          columns - 2,
        ).map((l) => paint('dim', l)),
      ),
    )
  if (data.instructions.files.length === 0) {
    // Say where the files are when other agents read some (gemini-cli: GEMINI.md files, none for sysprompt's mode).
    const other = harnesses?.find((line) => line.start.files > 0 || line.onDemand.files > 0)
    out.push(
      other === undefined || data.instructions.mode !== 'sysprompt'
        ? '  (none found)'
        : `  (none that ${data.instructions.mode} mode reads; --mode ${other.modes[0]} shows what ${other.modes[0]} loads)`,
    )
  } else {
    const own = data.instructions.mode === 'sysprompt'
    const rows: (Cell | string)[][] = [
      ['file', 'bytes', 'tokens', own ? 'header' : '', ''].map((text) => ({ text, tone: 'bold' as const })),
    ]
    fileRows(data.instructions.files, 0, rows)
    out.push(...indent(table(rows, ['left', 'right', 'right', 'right', 'left'], paint)))
    out.push(
      `  ${paint('dim', own ? 'tokens: own text as sysprompt mode sends it; header: its <!-- path --> line' : `tokens: own text as ${data.instructions.mode} sends it; its framing is counted in the parts below`)}`,
    )
  }
  if (data.instructions.onDemand.length > 0) {
    out.push('', h('On demand (loaded with a tool result, never in the cached prefix)'))
    const rows: (Cell | string)[][] = [
      ['file', 'tokens', 'loaded'].map((text) => ({ text, tone: 'bold' as const })),
    ]
    for (const f of data.instructions.onDemand)
      rows.push([
        f.shown,
        groupDigits(f.tokens),
        f.loadedFor.length > 0
          ? { text: `late-bound: loaded for ${f.loadedFor.join(', ')}`, tone: 'green' }
          : sameDirectory(f.shown, f.when)
            ? 'in its directory'
            : f.when,
      ])
    out.push(...indent(table(rows, ['left', 'right', 'left'], paint, columns - 2)))
  }
  if (data.instructions.mode !== 'sysprompt' && data.instructions.harness.length > 0) {
    out.push('', h(`Where ${data.instructions.mode} puts them (show --as-harness prints the text)`))
    const rows: (Cell | string)[][] = [
      ['part', 'role', 'tokens', 'files'].map((text) => ({ text, tone: 'bold' as const })),
    ]
    for (const p of data.instructions.harness)
      rows.push([p.placement, p.role, groupDigits(p.tokens), list(p.files)])
    out.push(...indent(table(rows, ['left', 'left', 'right', 'left'], paint)))
  }
  for (const d of data.instructions.diagnostics) out.push(...notice(d.message))
  if (data.rules.length > 0) {
    out.push('', h('Rules (.sysprompt/rules)'))
    const rows: (Cell | string)[][] = data.rules.map((r) => [
      r.id,
      r.applies ? { text: 'in', tone: 'green' } : { text: 'out', tone: 'dim' },
      r.why,
    ])
    out.push(...indent(table(rows, ['left', 'left', 'left'], paint, columns - 2)))
  }
  const { cache } = data
  const base =
    cache.baseTokens === 0 ? '' : `, ${groupDigits(cache.baseTokens)} harness tokens before the prompt`
  out.push(
    '',
    h(
      unnamed
        ? `Cache (no provider or model named${base})`
        : `Cache (${cache.provider}${cache.model === null ? '' : `, ${cache.model}`}, minimum ${groupDigits(cache.minTokens)} tokens${base})`,
    ),
  )
  if (unnamed) out.push('  (no minimum and no verdict; pass --provider or --model)')
  else if (!cache.named)
    out.push("  (no model named: the minimum is the provider's largest; pass --model for a verdict)")
  if (cache.view === 'harness') out.push(...harnessCacheLines(data, unnamed))
  else out.push(...promptCacheLines(data, unnamed))
  for (const w of cache.warnings) out.push(...notice(w.message))
  if (data.warnings.length > 0) {
    out.push('', h('Warnings'))
    for (const w of data.warnings) out.push(...notice(w.message))
  }
  return `${out.join('\n')}\n`
}

/** The cache block's lines for sysprompt's prompt: its stable prefixes, breakpoints and what is cacheable. */
function promptCacheLines(data: InspectData, unnamed: boolean): string[] {
  const { cache, stablePrefix } = data
  const out: string[] = []
  const through = (s: string | null) => (s === null ? 'empty' : `through ${s}`)
  out.push(
    `  static prefix            ${groupDigits(stablePrefix.static.tokens)} tokens, ${through(stablePrefix.static.through)}`,
  )
  out.push(
    `  static + session prefix  ${groupDigits(stablePrefix.session.tokens)} tokens, ${through(stablePrefix.session.through)}`,
  )
  out.push(
    `  breakpoints              ${cache.breakpoints.length === 0 ? 'none' : cache.breakpoints.map((b) => `after ${b.section} (line ${groupDigits(b.line)})`).join(', ')}`,
  )
  const none = !unnamed && cache.breakpoints.length > 0 && !cache.breakpoints.some((b) => b.cacheable)
  out.push(
    `  cacheable                ${groupDigits(cache.cacheableTokens)} tokens${none ? ' (no prefix reaches the minimum)' : ''}`,
  )
  return out
}

/**
 * The cache block's lines in a harness mode: what the harness sends (the
 * parts of `Where … puts them`, one total), the prefix it sends at the
 * start (tool results come later) and what of it is cacheable.
 */
function harnessCacheLines(data: InspectData, unnamed: boolean): string[] {
  const { cache } = data
  const prefix = data.stablePrefix.session
  const mode = data.instructions.mode
  const later = cache.tokens - prefix.tokens
  const none = !unnamed && prefix.tokens > 0 && cache.cacheableTokens === 0
  return [
    `  ${mode} sends${' '.repeat(Math.max(1, 19 - mode.length))}${groupDigits(cache.tokens)} tokens (show --mode ${mode} --as-harness)`,
    `  prefix at start          ${groupDigits(prefix.tokens)} tokens, ${prefix.through === null ? 'empty' : `through ${prefix.through}`}`,
    ...(later > 0
      ? [`  later, in tool results   ${groupDigits(later)} tokens (outside the cached prefix)`]
      : []),
    `  cacheable                ${groupDigits(cache.cacheableTokens)} tokens${none ? ' (the prefix does not reach the minimum)' : ''}`,
  ]
}

/** `sysprompt inspect`: where the prompt's tokens go, what it is made of, and what its cache can reuse. */
export function registerInspect(program: Command, ctx: CommandContext): void {
  addPromptOptions(
    program
      .command('inspect')
      .description('show sections, tokens, tools, instruction files and the cache plan')
      .addOption(new Option('--as-harness').hideHelp()),
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
    .action(async (raw: RawOptions, command: Command) => {
      // The harness view is text, which `show` prints; inspect already reports it (where each part goes, its tokens).
      if (raw.asHarness === true)
        throw new UsageError(
          'inspect has no --as-harness: it already reports the harness view of --mode (where each part goes and its tokens)',
          'run `sysprompt show --mode <harness> --as-harness` for the text the harness sends, or `sysprompt inspect --mode <harness>` for its report',
        )
      const options = await readPromptOptions(raw, ctx.io.cwd, ctx.io.env)
      const print = printer(ctx, options.color)
      const project = await buildProject(options, ctx.io.env)
      const compiled = requireCompiled(project)
      // The first screen (every agent here) opens plain inspect; `--mode X` asks for that harness alone.
      const data = await inspectData(project, compiled, {
        agents: command.getOptionValueSource('mode') !== 'cli',
      })
      if (options.json) print.out(json(data))
      else {
        for (const warning of buildWarnings(project).filter(
          (w) => !compiled.warnings.some((c) => c.message === w),
        ))
          print.warn(warning)
        print.out(render(data, print.paint, terminalWidth(ctx.io)))
      }
      ctx.exit(EXIT.ok)
    })
}
