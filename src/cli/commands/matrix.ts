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
import { type Cell, json, list, type Paint, paragraph, table, terminalWidth } from '../output.js'

function cutLines(cuts: readonly MatrixCut[]): string[] {
  return cuts.map((c) => `${c.file}${c.line === undefined ? '' : `:${c.line}`}`)
}

/**
 * The text form: a summary paragraph per harness, then one row per harness
 * and working path. Paths are shown whole, relative to the root; lists (cuts,
 * rules that fire) take one line an item; summaries wrap at word boundaries
 * to `columns` and never inside a number.
 */
export function renderMatrix(harnesses: readonly MatrixHarness[], columns: number, paint: Paint): string {
  const summaries = harnesses.flatMap((h) => paragraph(h.summary, columns))
  const head: (Cell | string)[] = ['harness', 'path', 'start', '+path', 'tokens', 'cut', 'fires'].map(
    (text) => ({
      text,
      tone: 'bold' as const,
    }),
  )
  const rows = harnesses.flatMap((h) =>
    h.rows.map((r): (Cell | string)[] => [
      h.mode,
      r.path ?? '(start)',
      groupDigits(r.start.length),
      groupDigits(r.forPath.length),
      r.tokens.path === 0
        ? groupDigits(r.tokens.start)
        : `${groupDigits(r.tokens.start)}+${groupDigits(r.tokens.path)}`,
      list(cutLines(r.cut)),
      list(r.fires),
    ]),
  )
  const lines = table(
    [head, ...rows],
    ['left', 'left', 'right', 'right', 'right', 'left', 'left'],
    paint,
    columns,
  )
  return `${summaries.join('\n')}\n\n${lines.join('\n')}\n`
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
