/** Exit codes of the command line (SPEC §9): fine, findings or errors, usage. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const

/**
 * `text` on one line for a terminal message: each line trimmed, the blank
 * ones dropped, the rest joined by one space. Unlike the template layer's
 * `oneLine`, which escapes line breaks so a quoted excerpt stays exact, this
 * folds prose (a commander message, an error's own text) into a sentence.
 */
export function joinLines(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join(' ')
}

/**
 * One line that says what went wrong, then what to do: `<what>; <what to
 * do>`. A `todo` of `null` means `what` already ends with the advice (a
 * lower layer's message that says what to do), so none is added.
 */
function sentence(what: string, todo: string | null): string {
  return joinLines(todo === null ? what : `${what}; ${todo}`)
}

/**
 * The command was called wrongly: an unknown option, a bad value, a
 * directory or file named on the command line that does not exist. Exit
 * code 2. The message is one line, `<what went wrong>; <what to do>`.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError'
  readonly code = 'usage'
  readonly exitCode = EXIT.usage

  constructor(what: string, todo: string) {
    super(sentence(what, todo))
  }
}

/**
 * The command ran but the project has a problem it cannot get past (a
 * template that does not compile, an unreadable lock, a file init would
 * overwrite). Exit code 1. `code` is stable, for tests and scripts. Pass
 * `todo: null` when `what` already says what to do, so the advice is given
 * once.
 */
export class CliError extends Error {
  override readonly name = 'CliError'
  readonly exitCode = EXIT.findings

  constructor(
    readonly code: string,
    what: string,
    todo: string | null,
    options: { cause?: unknown } = {},
  ) {
    super(sentence(what, todo), options.cause === undefined ? undefined : { cause: options.cause })
  }
}
