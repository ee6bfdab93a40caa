import { readFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { Command, CommanderError } from 'commander'
import { ProjectError } from '../node/project/errors.js'
import { SafeWriteError } from '../node/safe-write.js'
import type { CommandContext } from './command.js'
import { namedCommand } from './command-names.js'
import { flushCountCache } from './count-cache.js'
import { CliError, EXIT, joinLines, UsageError } from './errors.js'
import type { Io } from './output.js'
import { DEFAULT_HELP_WIDTH, NO_COMMAND_MESSAGE, type RootAnswers, type WidthStream } from './root-answers.js'
import { safeIo } from './sanitize.js'

export { namedCommand } from './command-names.js'

function version(): string {
  try {
    // Safe as a plain read: the package's own package.json, beside the built code; never a repository's file.
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

type Register = (program: Command, ctx: CommandContext) => void

/**
 * Every command, with what the root help shows of it, and its module,
 * loaded only when the command line names it: `sysprompt --help` and
 * `--version` load none of the prompt pipeline. A test keeps `term` and
 * `description` equal to what each module registers.
 */
export const COMMANDS: readonly {
  name: string
  term: string
  description: string
  load: () => Promise<Register>
}[] = [
  {
    name: 'show',
    term: 'show [options]',
    description: 'print the system prompt this project would get',
    load: async () => (await import('./commands/show.js')).registerShow,
  },
  {
    name: 'inspect',
    term: 'inspect [options]',
    description: 'show sections, tokens, tools, instruction files and the cache plan',
    load: async () => (await import('./commands/inspect.js')).registerInspect,
  },
  {
    name: 'diff',
    term: 'diff [options] [before] [after]',
    description: 'explain the difference between two compiled prompts (exit 1 when they differ)',
    load: async () => (await import('./commands/diff.js')).registerDiff,
  },
  {
    name: 'vars',
    term: 'vars [options]',
    description: 'list the variables the prompt uses, their values, and every key available',
    load: async () => (await import('./commands/vars.js')).registerVars,
  },
  {
    name: 'lint',
    term: 'lint [options]',
    description:
      'report template, variable, size, cache, Unicode, secret and special-token problems (exit 1 on errors)',
    load: async () => (await import('./commands/lint.js')).registerLint,
  },
  {
    name: 'check',
    term: 'check [options]',
    description: 'compare the prompt with sysprompt.lock in the project root (exit 1 on any difference)',
    load: async () => (await import('./commands/check.js')).registerCheck,
  },
  {
    name: 'explain',
    term: 'explain [options] <file>',
    description: 'say why an instruction file or a rule is in the prompt or not',
    load: async () => (await import('./commands/explain.js')).registerExplain,
  },
  {
    name: 'matrix',
    term: 'matrix [options]',
    description: 'one table of what each harness loads here: at start, per working path, tokens, cuts, rules',
    load: async () => (await import('./commands/matrix.js')).registerMatrix,
  },
  {
    name: 'init',
    term: 'init [options]',
    description: 'write a starter .sysprompt/ (template, an example rule, a preset fragment override)',
    load: async () => (await import('./commands/init.js')).registerInit,
  },
  {
    name: 'sessions',
    term: 'sessions',
    description: 'read the session ledger: stored prompts, their versions and cache outcomes',
    load: async () => (await import('./commands/sessions.js')).registerSessions,
  },
  {
    name: 'record',
    term: 'record [options] [command...]',
    description: 'run an agent with its model requests recorded through a proxy on 127.0.0.1',
    load: async () => (await import('./commands/record.js')).registerRecord,
  },
  {
    name: 'serve',
    term: 'serve [options]',
    description: 'serve the HTTP API (template, variables, preview, sessions, usage) for this project',
    load: async () => (await import('./commands/serve.js')).registerServe,
  },
]

/**
 * The `sysprompt` program: `wanted` (a command name, or `all`) registered
 * in full, every other command as its name and description for the root
 * help and for commander's suggestions.
 */
export async function createProgram(ctx: CommandContext, wanted: string | undefined): Promise<Command> {
  const program = new Command('sysprompt')
    .description('see, measure, lint and lock the system prompt an agent gets in a repository')
    .version(version(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      // Parse errors are printed by `run` in the one-line form every error has.
      outputError: () => {},
      // Commander's own rule, asked of the streams the command writes to (`process.stdout` in the CLI).
      getOutHelpWidth: () => helpWidth(ctx.io.stdout),
      getErrHelpWidth: () => helpWidth(ctx.io.stderr),
    })
    .addHelpText('after', ROOT_HELP)
    .hook('preAction', (_, action) => warnMissingPaths(ctx, action.opts()))
  const terms = new Map<Command, string>()
  for (const command of COMMANDS) {
    if (wanted === 'all' || wanted === command.name) (await command.load())(program, ctx)
    else terms.set(program.command(command.name).description(command.description), command.term)
  }
  const help = program.createHelp()
  program.configureHelp({
    subcommandTerm: (command) => terms.get(command) ?? help.subcommandTerm(command),
  })
  return program
}

/** A terminal's columns, else 80: what commander's own default gives. */
function helpWidth(stream: WidthStream): number {
  return (stream.isTTY === true ? stream.columns : undefined) ?? DEFAULT_HELP_WIDTH
}

/** The widest terminal the build renders the root help for, to find where its lines stop wrapping. */
const WIDEST = 400

/**
 * The root texts the launcher prints without loading this code (see
 * `root-answers.ts`), rendered here by commander: `scripts/build-cli.ts`
 * calls this and puts the result into the launcher.
 */
export async function renderRootAnswers(): Promise<RootAnswers> {
  const render = async (argv: string[], columns?: number) => {
    let out = ''
    const stdout = { write: (text: string) => (out += text), isTTY: columns !== undefined, columns }
    const code = await run(argv, { stdout, stderr: { write: () => true }, env: {}, cwd: '/' })
    if (code !== EXIT.ok) throw new Error(`sysprompt ${argv.join(' ')} exited ${code}`)
    return out
  }
  const wideHelp = await render(['--help'], WIDEST)
  let wideFrom = WIDEST
  while (wideFrom > 1 && (await render(['--help'], wideFrom - 1)) === wideHelp) wideFrom--
  return { version: await render(['--version']), help: await render(['--help']), wideHelp, wideFrom }
}

/** A commander message (`error: unknown option '--x'`, maybe with a suggestion line) as one sentence. */
function commanderMessage(error: CommanderError): string {
  return joinLines(error.message.replace(/^error: /, '')).replace(/\.$/, '')
}

/**
 * Runs the command line and returns the exit code (SPEC §9): 0 fine, 1
 * findings or errors, 2 usage. Every error is one line on stderr,
 * `sysprompt: <what went wrong>; <what to do>`. Everything written goes
 * through the output sanitizer (`sanitize.ts`): repository text in
 * messages, tables, warnings and errors reaches the terminal with its
 * escapes made visible; only `show`'s prompt is written exactly, and only
 * where it asks for it.
 */
export async function run(argv: readonly string[], given: Io): Promise<number> {
  const io = safeIo(given)
  let code: number = EXIT.ok
  const ctx: CommandContext = { io, exit: (c) => (code = c) }
  const program = await createProgram(ctx, namedCommand(argv))
  const fail = (message: string, exit: number) => {
    io.stderr.write(`sysprompt: ${message}\n`)
    return exit
  }
  if (argv.length === 0) {
    program.outputHelp({ error: true })
    io.stderr.write(NO_COMMAND_MESSAGE)
    return EXIT.usage
  }
  try {
    await program.parseAsync([...argv], { from: 'user' })
    await flushCountCache()
    return code
  } catch (error) {
    await flushCountCache()
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
      ) {
        return EXIT.ok
      }
      // An unknown word under a command with subcommands (`sessions a`) points to that command's help.
      const command =
        error.code === 'commander.unknownCommand' ? namedCommand(argv) : argv.find((a) => !a.startsWith('-'))
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

/**
 * A `--path` that names nothing on disk is kept (an agent may be about to
 * create that file, and the rules that match it are worth knowing), but said
 * once on stderr, so a typo does not pass for a path that matched nothing.
 */
async function warnMissingPaths(ctx: CommandContext, opts: Record<string, unknown>): Promise<void> {
  const paths = Array.isArray(opts.path) ? (opts.path as unknown[]).filter((p) => typeof p === 'string') : []
  const cwd = resolve(ctx.io.cwd, typeof opts.cwd === 'string' ? opts.cwd : '.')
  for (const path of paths) {
    const exists = await stat(resolve(cwd, path)).then(
      () => true,
      () => false,
    )
    if (!exists)
      ctx.io.stderr.write(
        `sysprompt: warning: --path ${path}: does not exist (yet) under ${cwd}; shown as if the agent worked on a new file there\n`,
      )
  }
}
