import { relative, sep } from 'node:path'
import type { InstructionMode } from '../../node/instructions/discovery-options.js'
import { projectRoot } from '../../node/project/root.js'
import { discoverAll, discoveryLimits } from '../../node/report/harness-loads.js'
import { isInside } from '../../node/safe-read.js'
import { type CommandContext, printer } from '../command.js'
import { EXIT, UsageError } from '../errors.js'
import type { PromptOptions } from '../options.js'
import { json } from '../output.js'
import { firstDifference, type SameDifference, withheldFor } from '../same.js'

/**
 * `check --same a,b,…` (issue 16): for each working path (`--path`, else
 * the working directory), the instruction texts each harness loads, each
 * after its own cut, compared as sets (order and framing ignored). Exit 1
 * naming the path and the first differing file when they are not equal.
 * What a harness would send that sysprompt withholds (a link to a denied
 * file, a home name a repository adds) is a known difference: noted, never
 * a mismatch.
 */
export async function checkSame(
  ctx: CommandContext,
  options: PromptOptions,
  modes: readonly InstructionMode[],
): Promise<void> {
  if (modes.length < 2)
    throw new UsageError(
      `--same ${modes.join(',')}: names one harness`,
      'name two or more, e.g. --same claude,codex',
    )
  const print = printer(ctx, options.color)
  const root = await projectRoot(options.cwd, options.root)
  const loads = await discoverAll({
    cwd: options.cwd,
    root,
    rootIsBoundary: options.root !== undefined,
    modes,
    paths: options.paths,
    // Texts are compared, never counted.
    tokenizer: 'estimate',
    ...discoveryLimits(options),
  })
  const paths = options.paths.length === 0 ? [undefined] : options.paths
  const results = paths.map((path) => ({
    path,
    difference: firstDifference(loads, path, root, options.cwd),
    withheld: withheldFor(loads, path, root, options.cwd),
  }))
  const failed = results.filter(
    (r): r is (typeof results)[number] & { difference: SameDifference } => r.difference !== undefined,
  )
  if (options.json) {
    print.out(
      json({
        ok: failed.length === 0,
        modes,
        paths: results.map((r) => ({
          path: r.difference?.path ?? r.path ?? null,
          same: r.difference === undefined,
          ...(r.difference === undefined ? {} : { difference: r.difference }),
          ...(r.withheld.length === 0 ? {} : { withheld: r.withheld }),
        })),
      }),
    )
  } else {
    const notes = new Map(results.flatMap((r) => r.withheld).map((w) => [`${w.mode}\0${w.file}`, w]))
    for (const w of notes.values())
      print.out(
        `note: ${w.mode} would also send ${shownFile(root, w.file)}, which sysprompt withholds (${w.reason}): a known difference, not compared\n`,
      )
    if (failed.length === 0) {
      const where =
        options.paths.length === 0
          ? 'the working directory'
          : `${options.paths.length} working path${options.paths.length === 1 ? '' : 's'}`
      print.out(
        `${print.paint('green', 'ok')}: ${modes.join(', ')} load the same instructions for ${where}\n`,
      )
    } else {
      for (const { difference } of failed) print.out(`${print.paint('red', '✗')} ${difference.message}\n`)
      const first = failed[0]!.difference
      ctx.io.stderr.write(
        `sysprompt: ${modes.join(', ')} do not load the same instructions: ${first.message}; give every harness the same files (a link or a shared AGENTS.md) or drop that harness from --same\n`,
      )
    }
  }
  ctx.exit(failed.length === 0 ? EXIT.ok : EXIT.findings)
}

/** A file in a note: relative to the root inside it, else as it is. */
function shownFile(root: string, file: string): string {
  return isInside(root, file) ? relative(root, file).split(sep).join('/') : file
}
