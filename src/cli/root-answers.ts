/**
 * What `sysprompt` prints for the command lines that name no command:
 * `--help` (`-h`, `help`), `--version` (`-V`) and no arguments at all. The
 * build renders these texts through commander (`renderRootAnswers` in
 * `run.ts`) and puts them into the launcher, which prints them without
 * loading the command line code: those answers then cost little more than
 * starting Node. Any other command line, and a terminal width the build
 * did not render for, goes through commander as before; a test keeps the
 * texts equal to what commander prints.
 *
 * No commander here, and nothing from `node:*`: the launcher bundles this.
 */

/** The root texts, rendered by commander at build time. */
export interface RootAnswers {
  /** What `--version` prints (with its newline). */
  version: string
  /** The root help at the width commander uses off a terminal (80 columns). */
  help: string
  /** The root help at any width from `wideFrom` up (no description wraps there). */
  wideHelp: string
  /** The narrowest width from which the help text no longer changes. */
  wideFrom: number
}

/** The width commander lays help out for when it writes to a stream that is not a terminal. */
export const DEFAULT_HELP_WIDTH = 80

/** The line `sysprompt` without arguments prints under the help. */
export const NO_COMMAND_MESSAGE =
  'sysprompt: no command given; run one of the commands above, e.g. `sysprompt inspect`\n'

/** A stream as commander asks it for its width: a terminal has columns. */
export interface WidthStream {
  isTTY?: boolean
  columns?: number
}

/** What the launcher answers by itself: text for stdout or stderr, and the exit code. */
export interface RootAnswer {
  stream: 'stdout' | 'stderr'
  text: string
  code: number
}

/** The help text for `stream`'s width as commander would lay it out, or undefined when the build did not render that width. */
function helpFor(stream: WidthStream, answers: RootAnswers): string | undefined {
  // Commander's own rule: a terminal's columns, else its default of 80.
  const width = (stream.isTTY === true ? stream.columns : undefined) ?? DEFAULT_HELP_WIDTH
  if (width === DEFAULT_HELP_WIDTH) return answers.help
  return width >= answers.wideFrom ? answers.wideHelp : undefined
}

/**
 * The answer to `argv` when it is one of the root texts (`--help`, `-h`,
 * `help`, `--version`, `-V`, or nothing), else undefined: the command line
 * code then runs and commander answers.
 */
export function rootAnswer(
  argv: readonly string[],
  out: { stdout: WidthStream; stderr: WidthStream },
  answers: RootAnswers,
): RootAnswer | undefined {
  if (argv.length === 0) {
    const help = helpFor(out.stderr, answers)
    return help === undefined ? undefined : { stream: 'stderr', text: help + NO_COMMAND_MESSAGE, code: 2 }
  }
  if (argv.length !== 1) return undefined
  const [word] = argv
  if (word === '--version' || word === '-V') return { stream: 'stdout', text: answers.version, code: 0 }
  if (word === '--help' || word === '-h' || word === 'help') {
    const help = helpFor(out.stdout, answers)
    return help === undefined ? undefined : { stream: 'stdout', text: help, code: 0 }
  }
  return undefined
}
