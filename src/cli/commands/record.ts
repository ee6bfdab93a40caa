import { dirname, join } from 'node:path'
import type { Command } from 'commander'
import { userCacheDir } from '../../node/count-cache.js'
import { prepareUserCache } from '../../node/user-cache.js'
import { bodyKeeper } from '../../record/bodies.js'
import { checkDrift, driftText } from '../../record/drift.js'
import {
  noProxyWithLoopback,
  type Pointing,
  pointHarness,
  RECORD_HARNESSES,
  type RecordHarness,
  RecordRefusal,
  recogniseHarness,
} from '../../record/pointing.js'
import { createRecorder, type DriftRequest } from '../../record/recorder.js'
import {
  DIAGNOSIS_BETA,
  type Relay,
  type RelayEvent,
  startRelay,
  UpstreamUrlError,
} from '../../record/relay/index.js'
import { askVersion, runCommand } from '../../record/run-command.js'
import { defaultStatePath, openStore, type PersistentPromptStore } from '../../store/index.js'
import { type CommandContext, examples } from '../command.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { scanSecretsWithPreset } from '../lint/secrets.js'
import type { RawOptions } from '../options.js'
import { prune, sizeCapped, sizeOption } from './record-store.js'
import { listenHelp, summaryText, upstreamOptions } from './record-text.js'

/** Masks every secret the lint rules find in `text` (the same rules `lint` reports), before it is stored. */
async function mask(text: string): Promise<string> {
  const hits = await scanSecretsWithPreset(text)
  let out = text
  for (const secret of new Set(hits.map((h) => h.secret).filter((s) => s.length > 0)))
    out = out.split(secret).join(`[secret: ${secret.length} characters]`)
  return out
}

function harnessOption(value: unknown): RecordHarness | 'auto' {
  if (value === undefined || value === 'auto') return 'auto'
  if ((RECORD_HARNESSES as readonly string[]).includes(String(value))) return value as RecordHarness
  throw new UsageError(
    `--harness ${String(value)}: not a harness record knows`,
    `name ${RECORD_HARNESSES.join(', ')} or auto`,
  )
}

function portOption(value: unknown): number {
  if (value === true || value === undefined) return 0
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(
      `--listen ${String(value)}: not a port`,
      'pass a number from 0 to 65535, or none for a free one',
    )
  return port
}

/** Waits for SIGINT or SIGTERM (`--listen`, and pi's run without its command). */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/** `sysprompt record`: run a harness with its model traffic recorded through a loopback proxy (SPEC §11). */
export function registerRecord(program: Command, ctx: CommandContext): void {
  program
    .command('record')
    .description('run an agent with its model requests recorded through a proxy on 127.0.0.1')
    .argument('[command...]', 'the agent to run, after --')
    .option('--harness <name>', `the harness COMMAND runs: ${RECORD_HARNESSES.join(', ')} or auto`, 'auto')
    .option(
      '--upstream <url>',
      'where requests go on: URL for every provider, or anthropic=URL, openai=URL, gemini=URL (repeatable)',
      (v: string, p: string[] = []) => [...p, v],
    )
    .option('--store <store>', 'sqlite:PATH or postgres://… (default: SQLite in the user state directory)')
    .option(
      '--check-drift',
      "exit 1 when what the harness sent differs from sysprompt's view of it (a CI job following harness releases)",
    )
    .option(
      '--diagnose',
      "ask the provider to explain its own cache misses: adds Anthropic's cache-diagnosis beta and the previous message id, OpenAI's comparison response id (the one change record makes to a request)",
    )
    .option(
      '--keep-bodies',
      "also keep each message's text (your own prompts included), masked, in the user's state directory",
    )
    .option('--prune', 'remove recorded calls older than --older-than (and recordings left empty), then exit')
    .option('--older-than <duration>', 'with --prune: an age such as 30d, 12h or 90m')
    .option(
      '--max-size <size>',
      'stop recording (traffic still flows) once the SQLite store passes this size',
      '1GiB',
    )
    .option(
      '--listen [port]',
      'run the proxy alone until interrupted (a free port without PORT), printing what each harness sets to use it',
    )
    .addHelpText(
      'after',
      `\nPointing a harness at the proxy writes none of your files: Claude Code gets ANTHROPIC_BASE_URL, Gemini CLI\nGOOGLE_GEMINI_BASE_URL, opencode OPENCODE_CONFIG_CONTENT, Codex -c provider flags after its binary; pi reads\nproviders only from ~/.pi/agent/models.json, so record prints the one setting to add and listens.\nCredentials are never stored; texts are masked by the secret rules of lint. The exit code is COMMAND's.\n${examples(
        [
          ['sysprompt record -- claude', 'an interactive Claude Code session, recorded'],
          ['sysprompt record -- codex exec "fix the tests"', 'one Codex run'],
          ['sysprompt record --listen 8089', 'the proxy alone on port 8089'],
        ],
      )}`,
    )
    .action(async (command: string[], raw: RawOptions) => {
      if (raw.prune === true) return prune(ctx, raw)
      const maxBytes = sizeOption(raw.maxSize)
      const listen = raw.listen !== undefined
      // Signals and the terminal's process group work as record relies on them on Linux and macOS only.
      if (!listen && process.platform === 'win32')
        throw new UsageError(
          'record -- COMMAND runs on Linux and macOS',
          'on Windows use sysprompt record --listen',
        )
      if (!listen && command.length === 0)
        throw new UsageError(
          'record needs a command to run',
          'put it after --: sysprompt record -- claude, or use --listen',
        )
      const { harness, at } = whichHarness(command, raw.harness, listen)
      const upstreams = upstreamOptions(Array.isArray(raw.upstream) ? raw.upstream.map(String) : [])
      // Pointed first (to learn the upstream the harness would have used), with the proxy's address filled in below.
      const probe =
        listen || harness === 'auto' ? undefined : tryPoint(harness, command, ctx, at, 'http://127.0.0.1:0')
      const store = openStore(typeof raw.store === 'string' ? raw.store : undefined, {
        cwd: ctx.io.cwd,
        env: ctx.io.env,
      })
      const drift = driftCheck(ctx, harness, listen)
      let relay: Relay | undefined
      try {
        const { count, name } = await estimateTokens()
        const recorder = createRecorder({
          store,
          harness: harness === 'auto' ? 'unknown' : harness,
          ...(probe !== undefined && {
            harnessVersion: () => askVersion(command.slice(0, at + 1), ctx.io.env, ctx.io.cwd),
          }),
          key: await recordKey(ctx),
          mask,
          count,
          tokenizer: name,
          onWarning: (m) => ctx.io.stderr.write(`sysprompt: warning: ${m}\n`),
          drift: drift.check,
          ...(raw.keepBodies === true && { keepBody: await keepBodies(ctx) }),
        })
        const capped = sizeCapped(store, maxBytes, (m) => ctx.io.stderr.write(`sysprompt: warning: ${m}\n`))
        relay = await relayFor(
          listen ? portOption(raw.listen) : 0,
          { ...probe?.upstreams, ...upstreams },
          async (event) => {
            if (!(await capped())) await recorder.handle(event)
          },
          ctx,
          raw.diagnose === true,
        )
        const pointing =
          probe === undefined ? undefined : tryPoint(harness as RecordHarness, command, ctx, at, relay.url)
        let code: number = EXIT.ok
        if (pointing === undefined || pointing.manual !== undefined) {
          // Listening for SIGINT and SIGTERM before saying where it listens: a caller may stop it as soon as it reads that.
          const stopped = interrupted()
          if (pointing?.manual !== undefined) ctx.io.stderr.write(`sysprompt: ${pointing.manual}\n`)
          ctx.io.stdout.write(listenHelp(relay.url))
          await stopped
        } else {
          const env = { ...ctx.io.env, ...pointing.env, ...noProxyWithLoopback(ctx.io.env) }
          code = await runCommand(pointing.command, env, ctx.io.cwd).catch((error: NodeJS.ErrnoException) => {
            throw new UsageError(
              `${command[0]}: cannot run it (${error.code ?? error.message})`,
              'check the command after --',
            )
          })
        }
        await relay.close()
        ctx.io.stderr.write(summaryText(recorder.summary(), relay.dropped))
        for (const line of drift.verdicts) ctx.io.stderr.write(`${line}\n`)
        // With --check-drift, a drift turns a success into 1 (a CI job following harness releases).
        ctx.exit(code === EXIT.ok && raw.checkDrift === true && drift.drifted() ? EXIT.findings : code)
      } finally {
        await relay?.close().catch(() => {})
        await store.close?.()
      }
    })
}

/** The harness `--harness` names, or the one the command runs (`auto`), and the index of the word naming it. */
function whichHarness(
  command: readonly string[],
  option: unknown,
  listen: boolean,
): { harness: RecordHarness | 'auto'; at: number } {
  const harness = harnessOption(option)
  if (listen) return { harness, at: 0 }
  const found = recogniseHarness(command)
  if (harness !== 'auto') return { harness, at: found?.at ?? 0 }
  if (found === undefined)
    throw new UsageError(
      `record does not recognise the harness ${command[0]} runs`,
      `name it with --harness ${RECORD_HARNESSES.join('|')} (see \`sysprompt record --help\`)`,
    )
  return found
}

async function relayFor(
  port: number,
  upstreams: Record<string, string>,
  onExchange: (event: RelayEvent) => Promise<void>,
  ctx: CommandContext,
  diagnose: boolean,
): Promise<Relay> {
  if (diagnose)
    ctx.io.stderr.write(
      `sysprompt: --diagnose: Anthropic requests get the ${DIAGNOSIS_BETA} beta and the previous message id, OpenAI Responses requests the comparison response id, so the provider explains its own misses\n`,
    )
  try {
    return await startRelay({
      port,
      upstreams,
      diagnose,
      onExchange,
      onWarning: (m) => ctx.io.stderr.write(`sysprompt: warning: ${m}\n`),
    })
  } catch (error) {
    if (error instanceof UpstreamUrlError)
      throw new UsageError(`--upstream: ${error.message}`, 'see `sysprompt record --help`')
    throw error
  }
}

/**
 * The drift check of each conversation: the harness view for the harness,
 * version and working directory of its first request (and of each new
 * version), against what the harness sent; the verdicts, in words.
 */
function driftCheck(ctx: CommandContext, harness: RecordHarness | 'auto', listen: boolean) {
  const verdicts: string[] = []
  let drifted = false
  const check = async (request: DriftRequest): Promise<void> => {
    if (harness === 'auto') {
      verdicts.push('drift: not checked: --listen does not know the harness; name it with --harness')
      return
    }
    const cwd = request.workingDirectory ?? (listen ? undefined : ctx.io.cwd)
    if (cwd === undefined) {
      verdicts.push(
        'drift: not checked: the harness did not say its working directory, and --listen has none',
      )
      return
    }
    const verdict = await checkDrift({
      harness,
      cwd,
      sent: request.sent,
      ...(request.version !== undefined && { version: request.version }),
    })
    if (verdict.verdict === 'differs') drifted = true
    verdicts.push(driftText(verdict))
  }
  return { check, verdicts, drifted: () => drifted }
}

/** `--keep-bodies`: the body files' directory beside the default store, in the user's state directory. */
async function keepBodies(ctx: CommandContext): Promise<(hash: string, text: string) => Promise<void>> {
  const dir = join(dirname(defaultStatePath({ env: ctx.io.env })), 'bodies')
  ctx.io.stderr.write(
    `sysprompt: keeping message texts, masked, in ${dir} (mode 0600; never in a shared store)\n`,
  )
  return bodyKeeper(dir)
}

/** The per-user secret of the keyed hashes: the key of the user's cache directory (made there, mode 0600, when missing). */
async function recordKey(ctx: CommandContext): Promise<Buffer> {
  const dir = userCacheDir(ctx.io.env)
  if (dir === undefined)
    throw new CliError(
      'record',
      'record keeps a per-user key in the cache directory, and there is no home for it',
      'set HOME or XDG_CACHE_HOME to a directory of yours',
    )
  try {
    return await prepareUserCache(dir)
  } catch (error) {
    throw new CliError(
      'record',
      `the per-user key cannot be kept: ${(error as Error).message}`,
      'set XDG_CACHE_HOME to a directory only you can write',
    )
  }
}

function tryPoint(
  harness: RecordHarness,
  command: readonly string[],
  ctx: CommandContext,
  at: number,
  url: string,
): Pointing {
  try {
    return pointHarness(harness, command, ctx.io.env, url, at)
  } catch (error) {
    if (error instanceof RecordRefusal) throw new CliError('usage', error.message, null)
    throw error
  }
}

/** The token counter of recorded parts: o200k, an estimate for every provider (only the provider's usage is exact). */
async function estimateTokens(): Promise<{ count: (text: string) => number; name: string }> {
  // Registers the Node loaders (the compact rank table), so o200k loads on first count.
  ;(await import('../../node/tokenizer-loaders.js')).registerNodeTokenizers()
  const { countTokens, resolveTokenizer } = await import('../../compile/tokenizers.js')
  const tokenizer = resolveTokenizer('o200k')
  return { count: (text) => countTokens(tokenizer, text), name: 'o200k' }
}

export type { PersistentPromptStore }
