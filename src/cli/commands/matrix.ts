import { type Command, Option } from 'commander'
import { groupDigits } from '../../node/instructions/budget.js'
import { INSTRUCTION_MODES } from '../../node/instructions/discovery-options.js'
import { projectRoot } from '../../node/project/root.js'
import { discoverAll } from '../../node/report/harness-loads.js'
import { type MatrixCut, type MatrixHarness, matrixData } from '../../node/report/matrix-data.js'
import { type CommandContext, examples, printer } from '../command.js'
import { countCacheFor } from '../count-cache.js'
import { EXIT } from '../errors.js'
import { parseModes } from '../modes-option.js'
import { addCommonOptions, type RawOptions, readCommonOptions, TOKENIZERS } from '../options.js'
import { type Cell, json, type Paint, paragraph, table, terminalWidth, width } from '../output.js'
import { visible } from '../sanitize.js'

function cutLines(cuts: readonly MatrixCut[]): string[] {
  return cuts.map((c) => `${c.file}${c.line === undefined ? '' : `:${c.line}`}`)
}

/**
 * A labelled list under a row, one item a line: aligned after the label
 * (`fires  a.md`) when every item fits there, else under a label line of its
 * own, two spaces in; an item too wide even for that stands alone on its
 * line, unindented and whole.
 */
function labelled(label: string, items: readonly string[], indent: number, columns: number): string[] {
  const shown = items.map((item) => visible(item))
  const lead = indent + label.length + 2
  if (shown.every((item) => lead + width(item) <= columns))
    return shown.map((item, i) => (i === 0 ? `${' '.repeat(indent)}${label}  ` : ' '.repeat(lead)) + item)
  const under = indent + 2
  return [
    ' '.repeat(indent) + label,
    ...shown.map((item) => (under + width(item) <= columns ? ' '.repeat(under) + item : item)),
  ]
}

/** A character no summary holds, standing in for the spaces of a path while the summary wraps. */
const GLUE = '\u{E000}'

/**
 * A harness's summary wrapped at word boundaries, the paths it names (the
 * files it cuts) kept whole even where they hold a space.
 */
function summaryLines(harness: MatrixHarness, columns: number): string[] {
  if (harness.summary.includes(GLUE)) return paragraph(harness.summary, columns)
  let glued = harness.summary
  for (const file of new Set(harness.rows.flatMap((r) => r.cut.map((c) => c.file))))
    if (file.includes(' ')) glued = glued.split(file).join(file.replaceAll(' ', GLUE))
  return paragraph(glued, columns).map((line) => line.replaceAll(GLUE, ' '))
}

/**
 * The text form: a summary paragraph per harness, then a block per working
 * path (or one for the session start): the path whole on a line of its own,
 * then a row per harness with its counts, and under each row the files it
 * cuts and the rules that fire, one a line. Nothing is cut: only a path wider
 * than `columns` makes a line wider, and it stands alone on that line.
 * Summaries wrap at word boundaries to `columns`, never inside a number.
 */
export function renderMatrix(harnesses: readonly MatrixHarness[], columns: number, paint: Paint): string {
  const summaries = harnesses.flatMap((h) => summaryLines(h, columns))
  const head: (Cell | string)[] = ['harness', 'start', '+path', 'tokens'].map((text) => ({
    text,
    tone: 'bold' as const,
  }))
  const blocks = (harnesses[0]?.rows ?? []).map((first, k) => {
    const rows = harnesses.map((h) => h.rows[k]!)
    const counts = table(
      [
        head,
        ...harnesses.map((h, i): string[] => [
          h.mode,
          groupDigits(rows[i]!.start.length),
          groupDigits(rows[i]!.forPath.length),
          rows[i]!.tokens.path === 0
            ? groupDigits(rows[i]!.tokens.start)
            : `${groupDigits(rows[i]!.tokens.start)}+${groupDigits(rows[i]!.tokens.path)}`,
        ]),
      ],
      ['left', 'right', 'right', 'right'],
      paint,
    )
    const title = first.path === null ? 'at session start (no working path)' : visible(first.path)
    return [
      paint('bold', title),
      `  ${counts[0]}`,
      ...rows.flatMap((r, i) => [
        `  ${counts[i + 1]}`,
        ...labelled('cut', cutLines(r.cut), 4, columns),
        ...labelled('fires', r.fires, 4, columns),
      ]),
    ].join('\n')
  })
  return `${summaries.join('\n')}\n\n${blocks.join('\n\n')}\n`
}

/** `sysprompt matrix`: what every harness loads in this repository, at start and for each working path. */
export function registerMatrix(program: Command, ctx: CommandContext): void {
  addCommonOptions(
    program
      .command('matrix')
      .description(
        'one table of what each harness loads here: at start, per working path, tokens, cuts, rules',
      )
      .option('--modes <list>', `comma-separated modes (default: all: ${INSTRUCTION_MODES.join(',')})`)
      .addOption(
        new Option('--tokenizer <name>', 'how tokens are counted (default: o200k)').choices(TOKENIZERS),
      )
      .option('--no-cache', "neither read nor write the token-count cache in the user's cache directory"),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt matrix', 'every harness, at session start'],
        ['sysprompt matrix --path src/app.ts --path docs/a.md', 'one row per harness and working path'],
        ['sysprompt matrix --modes claude,codex,copilot --json', 'as data'],
      ]),
    )
    .action(async (raw: RawOptions) => {
      const options = await readCommonOptions(raw, ctx.io.cwd)
      const print = printer(ctx, options.color)
      const modes = typeof raw.modes === 'string' ? parseModes(raw.modes) : [...INSTRUCTION_MODES]
      const root = await projectRoot(options.cwd, options.root)
      const countCache = await countCacheFor(raw.cache !== false, ctx.io.env, [options.cwd, root])
      const loads = await discoverAll({
        cwd: options.cwd,
        root,
        rootIsBoundary: options.root !== undefined,
        modes,
        paths: options.paths,
        tokenizer: typeof raw.tokenizer === 'string' ? (raw.tokenizer as 'o200k') : 'o200k',
        ...(countCache === undefined ? {} : { countCache }),
      })
      const harnesses = matrixData(loads, root, options.paths)
      print.out(
        options.json
          ? json({ root, harnesses })
          : renderMatrix(harnesses, terminalWidth(ctx.io), print.paint),
      )
      ctx.exit(EXIT.ok)
    })
}
