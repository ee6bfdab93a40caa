/** Exit codes of the command line (SPEC §9): fine, findings or errors, usage. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const

import { joinLines, sentence } from '../node/project/errors.js'

export { joinLines }

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
