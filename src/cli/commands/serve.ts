import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { type Command, Option } from 'commander'
import type { PromptStore } from '../../compile/index.js'
import { memoryStore } from '../../compile/index.js'
import { projectRoot } from '../../node/project/root.js'
import { DEFAULT_PORT, ServerStartError, startServer } from '../../server/index.js'
import { openStore } from '../../store/index.js'
import { type CommandContext, examples } from '../command.js'
import { EXIT, UsageError } from '../errors.js'
import { existingDir, type RawOptions } from '../options.js'

/** A token file larger than this is not a token. */
const MAX_TOKEN_BYTES = 4096

/** Reads `--token-file`: a regular file (never a FIFO or device), its first line the token. */
async function readToken(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch((error: Error) => {
    throw new UsageError(`--token-file ${path}: cannot be opened (${error.message})`, 'pass a readable file')
  })
  try {
    const stat = await handle.stat()
    if (!stat.isFile())
      throw new UsageError(`--token-file ${path}: not a regular file`, 'pass a file holding the token')
    if (stat.size > MAX_TOKEN_BYTES)
      throw new UsageError(`--token-file ${path}: over ${MAX_TOKEN_BYTES} bytes`, 'put only the token in it')
    const token = (await handle.readFile('utf8')).split(/\r?\n/)[0]?.trim() ?? ''
    if (token.length === 0)
      throw new UsageError(`--token-file ${path}: empty`, 'write the token on its first line')
    return token
  } finally {
    await handle.close()
  }
}

/** `sysprompt serve`: the HTTP API of SPEC §10 over this project. */
export function registerServe(program: Command, ctx: CommandContext): void {
  program
    .command('serve')
    .description('serve the HTTP API (template, variables, preview, sessions, usage) for this project')
    .option(
      '--cwd <dir>',
      'the project to serve (default: the current directory); its root is found as for show',
    )
    .option('--host <host>', 'the address to bind; off loopback a token is required', '127.0.0.1')
    .option('--port <port>', `the port (0 picks a free one)`, String(DEFAULT_PORT))
    .option(
      '--store <store>',
      'sqlite:PATH, postgres://… or memory (default: SQLite in the user state directory)',
    )
    .option(
      '--token-file <file>',
      'a file holding the bearer token every /api route then requires (or set SYSPROMPT_TOKEN)',
    )
    .option(
      '--workspace <name>',
      "serve this workspace's template from the store instead of .sysprompt/template.md",
    )
    .option(
      '--env <NAME>',
      'allow env:NAME to read this environment variable (repeatable)',
      (v: string, p: string[] = []) => [...p, v],
    )
    .addOption(new Option('--no-log', 'no request log lines on stderr'))
    .addHelpText(
      'after',
      `\nThe first line on stdout is the URL it listens on: listening on http://127.0.0.1:PORT.\nSIGTERM or SIGINT finishes the requests in flight, closes the store and exits.\n${examples(
        [
          ['sysprompt serve', 'the API on http://127.0.0.1:4319'],
          ['sysprompt serve --port 0', 'on a free port (read it from the first line)'],
          ['sysprompt serve --host 0.0.0.0 --token-file token.txt', 'off loopback, with a bearer token'],
        ],
      )}`,
    )
    .action(async (raw: RawOptions) => {
      const cwd = await existingDir(ctx.io.cwd, typeof raw.cwd === 'string' ? raw.cwd : ctx.io.cwd, '--cwd')
      const root = await projectRoot(cwd, undefined)
      const port = Number(raw.port)
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new UsageError(`--port ${String(raw.port)}: not a port`, 'pass a number from 0 to 65535')
      }
      const token =
        typeof raw.tokenFile === 'string'
          ? await readToken(raw.tokenFile)
          : ctx.io.env.SYSPROMPT_TOKEN?.trim() || undefined
      const env = Array.isArray(raw.env) ? raw.env.map(String) : []
      for (const name of env) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
          throw new UsageError(`--env ${name}: not an environment variable name`, 'pass a name like --env CI')
        }
      }
      const spec = typeof raw.store === 'string' ? raw.store : undefined
      const store: PromptStore =
        spec === 'memory' ? memoryStore() : openStore(spec, { cwd: ctx.io.cwd, env: ctx.io.env })
      let server: Awaited<ReturnType<typeof startServer>>
      try {
        server = await startServer({
          root,
          store,
          host: String(raw.host),
          port,
          env: ctx.io.env,
          envAllowlist: env,
          ...(token === undefined ? {} : { token }),
          ...(typeof raw.workspace === 'string' ? { workspace: raw.workspace } : {}),
          ...(raw.log === false ? {} : { log: (line: string) => ctx.io.stderr.write(`${line}\n`) }),
        })
      } catch (error) {
        await store.close?.()
        if (error instanceof ServerStartError)
          throw new UsageError(error.message, 'see `sysprompt serve --help`')
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
          throw new UsageError(
            `cannot listen on ${String(raw.host)}:${port} (${code})`,
            'pick another --host or --port (0 picks a free one)',
          )
        }
        throw error
      }
      ctx.io.stdout.write(`listening on ${server.url}\n`)
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGTERM', stop)
          process.off('SIGINT', stop)
          void server.close().then(resolve, (error: unknown) => {
            ctx.io.stderr.write(`sysprompt: closing failed: ${String(error)}\n`)
            resolve()
          })
        }
        process.on('SIGTERM', stop)
        process.on('SIGINT', stop)
      })
      ctx.exit(EXIT.ok)
    })
}
