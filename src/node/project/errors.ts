/**
 * `text` on one line: each line trimmed, the blank ones dropped, the rest
 * joined by one space. Unlike the template layer's `oneLine`, which escapes
 * line breaks so a quoted excerpt stays exact, this folds prose (a
 * commander message, an error's own text) into a sentence.
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
 * do>`. A `todo` of `null` means `what` already ends with the advice, so
 * none is added.
 */
export function sentence(what: string, todo: string | null): string {
  return joinLines(todo === null ? what : `${what}; ${todo}`)
}

/**
 * The project pipeline cannot go on. `code` is stable, for callers to map
 * (the command line to an exit code, the server to a status). `usage` says
 * the caller passed a value that cannot be used (a working directory
 * outside the root), as opposed to a file whose content cannot be used (a
 * tools file that is not JSON). The message is one line, `<what went
 * wrong>; <what to do>`.
 */
export class ProjectError extends Error {
  override readonly name = 'ProjectError'
  readonly usage: boolean

  constructor(
    readonly code: string,
    what: string,
    todo: string | null,
    options: { cause?: unknown; usage?: boolean } = {},
  ) {
    super(sentence(what, todo), options.cause === undefined ? undefined : { cause: options.cause })
    this.usage = options.usage === true
  }
}
