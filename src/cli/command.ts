import { joinLines } from './errors.js'
import { type Io, type Paint, painter, useColor } from './output.js'

/** What a command's action gets: the streams, and where to put its exit code. */
export interface CommandContext {
  io: Io
  /** Sets the process's exit code (0 fine, 1 findings or errors). */
  exit(code: number): void
}

/** The "Examples:" block of a command's `--help`. */
export function examples(lines: readonly (readonly [command: string, what: string])[]): string {
  const width = Math.max(...lines.map(([c]) => c.length))
  return `\nExamples:\n${lines.map(([c, what]) => `  $ ${c.padEnd(width)}  # ${what}`).join('\n')}\n`
}

/** Writes to stdout and stderr with colours decided once per run. */
export interface Printer {
  paint: Paint
  out(text: string): void
  /** One line on stderr, `sysprompt: warning: …`. */
  warn(text: string): void
}

/** The printer of one command run: colours as `useColor` decides for this terminal and `--no-color`. */
export function printer(ctx: CommandContext, color: boolean | undefined): Printer {
  const paint = painter(useColor(ctx.io, color))
  return {
    paint,
    out: (text) => ctx.io.stdout.write(text),
    warn: (text) => ctx.io.stderr.write(`sysprompt: warning: ${joinLines(text)}\n`),
  }
}
