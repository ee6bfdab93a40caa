import type { Command } from 'commander'
import { diffCompiled } from '../../compile/diff.js'
import { StoreError } from '../../compile/store-errors.js'
import type { SessionVersion, UsageOutcome } from '../../compile/types.js'
import { summariseUsage } from '../../compile/usage-report.js'
import { groupDigits } from '../../node/index.js'
import { openStore, type PersistentPromptStore } from '../../store/index.js'
import { type CommandContext, examples, type Printer, printer } from '../command.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { type Cell, clip, json, percent, table } from '../output.js'
import { writeExact } from '../sanitize.js'

interface SessionsOptions {
  store?: string
  json?: boolean
  color?: boolean
  limit?: string
  raw?: boolean
}

const short = (hash: string) => hash.replace(/^sha256:/, '').slice(0, 12)
const bold = (text: string): Cell => ({ text, tone: 'bold' })

/** Opens the store `--store` names (default: SQLite in the user's state directory) and closes it after `task`. */
async function withStore<T>(
  ctx: CommandContext,
  spec: string | undefined,
  task: (store: PersistentPromptStore) => Promise<T>,
): Promise<T> {
  let store: PersistentPromptStore
  try {
    store = openStore(spec, { cwd: ctx.io.cwd, env: ctx.io.env })
  } catch (error) {
    if (error instanceof StoreError) {
      if (
        error.code === 'invalid' &&
        error.operation === 'open' &&
        spec !== undefined &&
        !spec.startsWith('sqlite:')
      )
        throw new UsageError(`--store: ${error.detail}`, 'see `sysprompt sessions --help`')
      throw new CliError('store', error.detail, null, { cause: error })
    }
    throw error
  }
  try {
    return await task(store)
  } catch (error) {
    if (error instanceof StoreError) throw new CliError('store', error.message, null, { cause: error })
    throw error
  } finally {
    await store.close()
  }
}

async function historyOf(store: PersistentPromptStore, id: string): Promise<SessionVersion[]> {
  const history = await store.history(id)
  if (history.length === 0) {
    throw new CliError(
      'not-found',
      `no session "${id}" in ${store.location}`,
      'run `sysprompt sessions list` to see the sessions stored',
    )
  }
  return history
}

function versionNumber(value: string, history: SessionVersion[], what: string): SessionVersion {
  const n = Number(value)
  const found = Number.isInteger(n) ? history.find((v) => v.version === n) : undefined
  if (found === undefined) {
    throw new UsageError(
      `${what} "${value}" is not a version of this session`,
      `pass a number from 1 to ${history.length}`,
    )
  }
  return found
}

function usageLines(print: Printer, outcomes: UsageOutcome[], history: SessionVersion[]): string[] {
  const report = summariseUsage(outcomes, history)
  const out = [
    `${print.paint('bold', 'Calls')} ${report.calls}, input ${groupDigits(report.inputTokens)} tokens, cached ${groupDigits(report.cachedTokens)} (hit rate ${percent(report.cachedTokens, report.inputTokens)}); hot ${report.outcomes.hot}, partial ${report.outcomes.partial}, cold ${report.outcomes.cold}, small ${report.outcomes.small}`,
  ]
  if (outcomes.length === 0) return out
  const calls: (Cell | string)[][] = [
    [
      bold('#'),
      bold('at'),
      bold('version'),
      bold('model'),
      bold('input'),
      bold('cached'),
      bold('outcome'),
      bold('why'),
    ],
  ]
  for (const [i, o] of outcomes.entries()) {
    calls.push([
      String(i + 1),
      o.at,
      String(o.version),
      `${o.provider}/${o.model}`,
      groupDigits(o.inputTokens),
      groupDigits(o.cachedTokens),
      { text: o.outcome, tone: o.outcome === 'hot' ? 'green' : o.outcome === 'cold' ? 'red' : 'plain' },
      clip(o.why ?? '', 100),
    ])
  }
  out.push(
    '',
    ...table(calls, ['right', 'left', 'right', 'left', 'right', 'right', 'left', 'left'], print.paint).map(
      (l) => `  ${l}`,
    ),
  )
  const versions: (Cell | string)[][] = [
    [bold('version'), bold('calls'), bold('input'), bold('cached'), bold('hit rate')],
  ]
  for (const v of report.versions)
    versions.push([
      String(v.version),
      String(v.calls),
      groupDigits(v.inputTokens),
      groupDigits(v.cachedTokens),
      percent(v.cachedTokens, v.inputTokens),
    ])
  out.push(
    '',
    print.paint('bold', 'Per version'),
    ...table(versions, ['right', 'right', 'right', 'right', 'right'], print.paint).map((l) => `  ${l}`),
  )
  const sections: (Cell | string)[][] = [
    [bold('version'), bold('prefix through section'), bold('tokens'), bold('cached calls')],
  ]
  for (const s of report.sections)
    sections.push([String(s.version), s.section, groupDigits(s.prefixTokens), `${s.cachedCalls}/${s.calls}`])
  out.push(
    '',
    print.paint('bold', 'Per section prefix'),
    ...table(sections, ['right', 'left', 'right', 'right'], print.paint).map((l) => `  ${l}`),
  )
  return out
}

/** `sysprompt sessions list | show | history | diff | usage | delete`: the stored session ledger (SPEC §8, §9, §11). */
export function registerSessions(program: Command, ctx: CommandContext): void {
  const sessions = program
    .command('sessions')
    .description('read the session ledger: stored prompts, their versions and cache outcomes')
    .addHelpText(
      'after',
      `\nThe store is SQLite in the user's state directory ($XDG_STATE_HOME/sysprompt/state.db)\nunless --store names sqlite:PATH or postgres://user@host/database.\n${examples(
        [
          ['sysprompt sessions list', 'the sessions stored, newest first'],
          ['sysprompt sessions history chat-7', 'every version of a session with its reason'],
          ['sysprompt sessions diff chat-7 1 3', 'what changed between versions 1 and 3'],
          ['sysprompt sessions usage chat-7 --json', 'cache outcomes as data'],
          ['sysprompt sessions delete chat-7', 'remove a session (a recording too) from the store'],
        ],
      )}`,
    )
  const sub = (name: string, description: string) =>
    sessions
      .command(name)
      .description(description)
      .option('--store <store>', 'sqlite:PATH or postgres://… (default: SQLite in the user state directory)')
      .option('--json', 'print JSON instead of text')
      .option('--no-color', 'no colours even on a terminal (NO_COLOR does the same)')

  sub('list', 'the sessions stored, newest first')
    .option('--limit <n>', 'at most this many sessions')
    .action(async (options: SessionsOptions) => {
      const limit = options.limit === undefined ? undefined : Number(options.limit)
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
        throw new UsageError(
          `--limit "${options.limit}" is not a positive whole number`,
          'pass e.g. --limit 20',
        )
      const print = printer(ctx, options.color)
      const list = await withStore(ctx, options.store, (store) =>
        store.listSessions(limit === undefined ? {} : { limit }),
      )
      if (options.json) print.out(json(list))
      else if (list.length === 0) print.out('no sessions stored\n')
      else {
        const rows: (Cell | string)[][] = [
          [bold('id'), bold('versions'), bold('tokens'), bold('last reason'), bold('updated'), bold('hash')],
        ]
        for (const s of list)
          rows.push([s.id, String(s.versions), groupDigits(s.tokens), s.reason, s.updatedAt, short(s.hash)])
        print.out(
          `${table(rows, ['left', 'right', 'right', 'left', 'left', 'left'], print.paint).join('\n')}\n`,
        )
      }
      ctx.exit(EXIT.ok)
    })

  sub('show', "a session's current prompt, byte for byte")
    .argument('<id>', 'the session id')
    .option(
      '--raw',
      'on a terminal too, print the prompt byte for byte, escape sequences included (into a file or a pipe it always is)',
    )
    .action(async (id: string, options: SessionsOptions) => {
      const print = printer(ctx, options.color)
      const record = await withStore(ctx, options.store, async (store) => {
        const found = await store.getSession(id)
        if (found === undefined) await historyOf(store, id)
        return found!
      })
      if (options.json) print.out(json(record))
      else {
        const v = record.current
        print.out(
          `${print.paint('dim', `# session ${id}, version ${v.version} of ${record.versions} (${v.reason}, ${v.at}), ${groupDigits(v.tokens)} tokens, ${v.hash}`)}\n`,
        )
        // The prompt byte for byte into a file or a pipe, or with --raw; on a terminal with its escapes made visible.
        if (options.raw === true || ctx.io.stdout.isTTY !== true) writeExact(ctx.io.stdout, v.compiled.text)
        else print.out(v.compiled.text)
        print.out('\n')
      }
      ctx.exit(EXIT.ok)
    })

  sub('history', 'every version of a session, oldest first, with its reason and first change')
    .argument('<id>', 'the session id')
    .action(async (id: string, options: SessionsOptions) => {
      const print = printer(ctx, options.color)
      const history = await withStore(ctx, options.store, (store) => historyOf(store, id))
      const changes = history.map((v, i) =>
        i === 0 ? null : diffCompiled(history[i - 1]!.compiled, v.compiled),
      )
      if (options.json) {
        print.out(
          json(
            history.map((v, i) => ({
              version: v.version,
              hash: v.hash,
              tokens: v.tokens,
              reason: v.reason,
              at: v.at,
              firstChangedSection: changes[i]?.section ?? null,
            })),
          ),
        )
      } else {
        const rows: (Cell | string)[][] = [
          [bold('version'), bold('at'), bold('reason'), bold('tokens'), bold('hash'), bold('first change')],
        ]
        for (const [i, v] of history.entries()) {
          rows.push([
            String(v.version),
            v.at,
            v.reason,
            groupDigits(v.tokens),
            short(v.hash),
            changes[i]?.section ?? (i === 0 ? '' : '(prefix)'),
          ])
        }
        print.out(
          `${table(rows, ['right', 'left', 'left', 'right', 'left', 'left'], print.paint).join('\n')}\n`,
        )
      }
      ctx.exit(EXIT.ok)
    })

  sub('diff', 'what changed between two versions (default: the last two)')
    .argument('<id>', 'the session id')
    .argument('[from]', 'the older version number')
    .argument('[to]', 'the newer version number')
    .action(
      async (
        id: string,
        fromArg: string | undefined,
        toArg: string | undefined,
        options: SessionsOptions,
      ) => {
        if (fromArg !== undefined && toArg === undefined)
          throw new UsageError(
            'diff takes both FROM and TO or neither',
            'e.g. `sysprompt sessions diff chat-7 1 3`',
          )
        const print = printer(ctx, options.color)
        const history = await withStore(ctx, options.store, (store) => historyOf(store, id))
        const to = toArg === undefined ? history[history.length - 1]! : versionNumber(toArg, history, 'TO')
        const from =
          fromArg === undefined
            ? (history[history.length - 2] ?? to)
            : versionNumber(fromArg, history, 'FROM')
        const diff = diffCompiled(from.compiled, to.compiled)
        if (options.json) print.out(json({ id, from: from.version, to: to.version, reason: to.reason, diff }))
        else if (diff.identical)
          print.out(`versions ${from.version} and ${to.version} of ${id} are identical\n`)
        else {
          const lines = [
            `${print.paint('bold', `${id}: version ${from.version} → ${to.version}`)} (${to.reason})`,
            `  first difference at index ${diff.firstDifference}, in section ${diff.section ?? '(none: the new text is a prefix of the old)'}`,
            `  cached prefix still valid: ${groupDigits(diff.commonPrefixTokens)} tokens`,
          ]
          if (diff.changed.length > 0) lines.push(`  changed: ${diff.changed.join(', ')}`)
          if (diff.added.length > 0) lines.push(`  added: ${diff.added.join(', ')}`)
          if (diff.removed.length > 0) lines.push(`  removed: ${diff.removed.join(', ')}`)
          print.out(`${lines.join('\n')}\n`)
        }
        ctx.exit(EXIT.ok)
      },
    )

  sub('usage', "a session's cache outcomes: each call, hit rate per version and per section prefix")
    .argument('<id>', 'the session id')
    .action(async (id: string, options: SessionsOptions) => {
      const print = printer(ctx, options.color)
      const { history, outcomes } = await withStore(ctx, options.store, async (store) => ({
        history: await historyOf(store, id),
        outcomes: await store.usage(id),
      }))
      if (options.json) print.out(json({ id, outcomes, report: summariseUsage(outcomes, history) }))
      else print.out(`${usageLines(print, outcomes, history).join('\n')}\n`)
      ctx.exit(EXIT.ok)
    })

  sub('delete', 'remove a session, a recording too, with its versions, usage and calls')
    .argument('<id>', 'the session id')
    .action(async (id: string, options: SessionsOptions) => {
      const print = printer(ctx, options.color)
      const location = await withStore(ctx, options.store, async (store) => {
        if (!(await store.deleteSession(id))) await historyOf(store, id)
        return store.location
      })
      if (options.json) print.out(json({ id, deleted: true }))
      else
        print.out(
          `deleted session ${id} from ${location}: its versions, usage and calls (section texts it shared by hash stay)\n`,
        )
      ctx.exit(EXIT.ok)
    })
}
