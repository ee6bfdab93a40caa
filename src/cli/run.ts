import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { ProjectError } from '../node/project/errors.js'
import { SafeWriteError } from '../node/safe-write.js'
import type { CommandContext } from './command.js'
import { registerCheck } from './commands/check.js'
import { registerDiff } from './commands/diff.js'
import { registerExplain } from './commands/explain.js'
import { registerInit } from './commands/init.js'
import { registerInspect } from './commands/inspect.js'
import { registerLint } from './commands/lint.js'
import { registerServe } from './commands/serve.js'
import { registerSessions } from './commands/sessions.js'
import { registerShow } from './commands/show.js'
import { registerVars } from './commands/vars.js'
import { CliError, EXIT, joinLines, UsageError } from './errors.js'
import type { Io } from './output.js'

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string
    }
    return pkg.version ?? '0.0.0'
  } catch {
    return '0.0.0'
  }
}

const ROOT_HELP = `
The project root is --root, else the nearest ancestor of --cwd (or --cwd
itself) holding .sysprompt/ or .git, whichever is nearer. Paths on the
command line are relative to the current directory; --path values are
relative to --cwd.

Exit codes: 0 fine, 1 findings or errors, 2 usage. Colours only on a
terminal, never with NO_COLOR or --no-color.

Examples:
  $ sysprompt inspect --cwd examples/sample-project/packages/api
  $ sysprompt show --format anthropic
  $ sysprompt lint
  $ sysprompt check --update && git add sysprompt.lock
`

/** The `sysprompt` program with every command registered on it. */
export function createProgram(ctx: CommandContext): Command {
  const program = new Command('sysprompt')
    .description('see, measure, lint and lock the system prompt an agent gets in a repository')
    .version(version(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      // Parse errors are printed by `run` in the one-line form every error has.
      outputError: () => {},
    })
    .addHelpText('after', ROOT_HELP)
  registerShow(program, ctx)
  registerInspect(program, ctx)
  registerDiff(program, ctx)
  registerVars(program, ctx)
  registerLint(program, ctx)
  registerCheck(program, ctx)
  registerExplain(program, ctx)
  registerInit(program, ctx)
  registerSessions(program, ctx)
  registerServe(program, ctx)
  return program
}

/** A commander message (`error: unknown option '--x'`, maybe with a suggestion line) as one sentence. */
function commanderMessage(error: CommanderError): string {
  return joinLines(error.message.replace(/^error: /, '')).replace(/\.$/, '')
}

/**
 * Runs the command line and returns the exit code (SPEC §9): 0 fine, 1
 * findings or errors, 2 usage. Every error is one line on stderr,
 * `sysprompt: <what went wrong>; <what to do>`.
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  let code: number = EXIT.ok
  const ctx: CommandContext = { io, exit: (c) => (code = c) }
  const program = createProgram(ctx)
  const fail = (message: string, exit: number) => {
    io.stderr.write(`sysprompt: ${message}\n`)
    return exit
  }
  if (argv.length === 0) {
    program.outputHelp({ error: true })
    return fail('no command given; run one of the commands above, e.g. `sysprompt inspect`', EXIT.usage)
  }
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return code
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
      ) {
        return EXIT.ok
      }
      const command =
        error.code === 'commander.unknownCommand' ? undefined : argv.find((a) => !a.startsWith('-'))
      const help = command === undefined ? 'sysprompt --help' : `sysprompt ${command} --help`
      return fail(`${commanderMessage(error)}; see \`${help}\``, EXIT.usage)
    }
    if (error instanceof UsageError || error instanceof CliError) return fail(error.message, error.exitCode)
    if (error instanceof ProjectError) return fail(error.message, error.usage ? EXIT.usage : EXIT.findings)
    if (error instanceof SafeWriteError)
      return fail(`${error.message}; fix that path and run the command again`, EXIT.findings)
    const os = osErrorReason(error)
    if (os !== undefined) return fail(os, EXIT.findings)
    const message = error instanceof Error ? error.message : String(error)
    if (io.env.SYSPROMPT_DEBUG !== undefined && error instanceof Error && error.stack !== undefined) {
      io.stderr.write(`${error.stack}\n`)
    }
    return fail(
      `${joinLines(message)}; this is unexpected: rerun with SYSPROMPT_DEBUG=1 and report it`,
      EXIT.findings,
    )
  }
}

/** Reasons for the OS errors a file operation can meet: a problem with the user's files, never a bug. */
const OS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'a symbolic link loop',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a path component is not a directory',
  EISDIR: 'is a directory',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  EMFILE: 'too many open files',
}

/** `<path>: <reason>; <what to do>` for an OS error on a path, else `undefined`. */
export function osErrorReason(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException | undefined
  const reason = typeof e?.code === 'string' ? OS_REASONS[e.code] : undefined
  if (reason === undefined || typeof e?.path !== 'string') return undefined
  return `${e.path}: ${reason}; check that path (its permissions, links and free space) and run the command again`
}
