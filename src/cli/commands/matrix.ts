import { type Command, Option } from 'commander'
import { groupDigits } from '../../node/instructions/budget.js'
import { INSTRUCTION_MODES } from '../../node/instructions/types.js'
import { projectRoot } from '../../node/project/root.js'
import { discoverAll } from '../../node/report/harness-loads.js'
import { type MatrixCut, type MatrixHarness, matrixData } from '../../node/report/matrix-data.js'
import { type CommandContext, examples, printer } from '../command.js'
import { countCacheFor } from '../count-cache.js'
import { EXIT } from '../errors.js'
import { parseModes } from '../modes-option.js'
import { addCommonOptions, type RawOptions, readCommonOptions, TOKENIZERS } from '../options.js'
import { clip, json, type Paint, table, terminalWidth } from '../output.js'

function cutWords(cuts: readonly MatrixCut[]): string {
  if (cuts.length === 0) return '—'
  return cuts.map((c) => `${c.file}${c.line === undefined ? '' : `:${c.line}`}`).join(', ')
}

/** A line broken at spaces to fit `columns`, continuation lines indented by two spaces. */
function wrapLine(text: string, columns: number): string {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`
    if (line !== '' && next.length > columns) {
      lines.push(line)
      line = `  ${word}`
    } else line = next
  }
  lines.push(line)
  return lines.map((l) => clip(l, columns)).join('\n')
}

function baseName(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1)
}

/** The text form: a summary line per harness, then one row per harness and working path, fitted to `columns`. */
export function renderMatrix(harnesses: readonly MatrixHarness[], columns: number, paint: Paint): string {
  const summaries = harnesses.map((h) => wrapLine(h.summary, columns))
  const head = ['harness', 'path', 'start', '+path', 'tokens', 'cut', 'fires']
  const rows = harnesses.flatMap((h) =>
    h.rows.map((r) => [
      h.mode,
      r.path ?? '(start)',
      groupDigits(r.start.length),
      groupDigits(r.forPath.length),
      r.tokens.path === 0
        ? groupDigits(r.tokens.start)
        : `${groupDigits(r.tokens.start)}+${groupDigits(r.tokens.path)}`,
      cutWords(r.cut),
      r.fires.length === 0 ? '—' : r.fires.map(baseName).join(', '),
    ]),
  )
  // Fixed columns keep their width; the path and cut columns share what is left with the last one, which wraps.
  const fixed = Math.max(...[head, ...rows].map((r) => r[0]!.length)) + 5 + 5 + 11 + 6 * 2
  const free = Math.max(24, columns - fixed)
  const pathWidth = Math.max(6, Math.floor(free / 3))
  const cutWidth = Math.max(4, Math.floor(free / 3))
  const fitted = [head, ...rows].map((r) => [
    r[0]!,
    clip(r[1]!, pathWidth),
    r[2]!,
    r[3]!,
    clip(r[4]!, 11),
    clip(r[5]!, cutWidth),
    r[6]!,
  ])
  const lines = table(fitted, ['left', 'left', 'right', 'right', 'right', 'left', 'left'], paint, columns)
  return `${summaries.join('\n')}\n\n${lines.map((l) => clip(l, columns)).join('\n')}\n`
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
