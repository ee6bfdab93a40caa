import { join } from 'node:path'
import type { Command } from 'commander'
import {
  type CompiledPrompt,
  checkLock,
  createLock,
  formatLock,
  type LockCheck,
  type LockEntry,
  LockError,
  lockKeys,
  type PromptLock,
  parseLockFile,
  SYSPROMPT_ENTRY,
  type TokenizerName,
  withLockEntry,
} from '../../compile/index.js'
import { groupDigits, SafeWriteError, writeFileSafely } from '../../node/index.js'
import type { ProjectPrompt } from '../../node/project/project.js'
import { DEFAULT_MAX_FILE_BYTES, jsonErrorWithoutExcerpt, readCliFile } from '../../node/project/read-file.js'
import { projectRoot } from '../../node/project/root.js'
import { type CommandContext, examples, printer } from '../command.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { buildEntry, entriesAsked, entryKey } from '../lock-entries.js'
import { findMachineValues, type MachineValue, machineValues } from '../lock-machine.js'
import { parseModes } from '../modes-option.js'
import {
  addPromptOptions,
  type PromptOptions,
  type RawOptions,
  readPromptOptions,
  TOKENIZERS,
} from '../options.js'
import { json } from '../output.js'
import { requireCompiled } from '../require-compiled.js'
import { checkSame } from './check-same.js'

/** The lock file's name, in the project root. */
export const LOCK_FILE = 'sysprompt.lock'

/**
 * Reads and parses `sysprompt.lock` through the command line's one way in:
 * a regular file inside the project (a link out of it, a FIFO or
 * `/dev/zero` is refused at once, with its reason), at most `maxBytes`. A
 * missing lock is `no-lock`; any other refusal or a broken lock is a
 * `CliError` that says why, never echoing the file's bytes. `version` is the
 * format the file was in (1 is read as the entry `sysprompt`).
 */
export async function readLock(
  root: string,
  maxBytes: number,
): Promise<{ lock: PromptLock; version: 1 | 2 }> {
  const path = join(root, LOCK_FILE)
  const read = await readCliFile({ path, root, maxBytes }, path)
  if (!read.ok) {
    if (read.reason === 'missing')
      throw new CliError(
        'no-lock',
        `no ${LOCK_FILE} in ${root}`,
        'run `sysprompt check --update` to create it',
      )
    throw new CliError(
      `lock-${read.reason}`,
      read.message,
      read.reason === 'too-large'
        ? 'raise --max-file-bytes, or regenerate it with `sysprompt check --update`'
        : `replace it with a regular file: remove it and run \`sysprompt check --update\``,
    )
  }
  const text = read.text
  try {
    return parseLockFile(text)
  } catch (error) {
    if (!(error instanceof LockError)) throw error
    if (error.code === 'invalid-json') {
      // The parser's message quotes the start of the file: say where it breaks instead.
      throw new CliError(
        error.code,
        `${path} is not valid JSON (${jsonErrorWithoutExcerpt(error.cause)})`,
        'fix it or regenerate it with `sysprompt check --update`',
        { cause: error },
      )
    }
    // The lock layer's message already says what to do (so no advice is added); it names the file by its bare name.
    const what = error.message.startsWith(LOCK_FILE)
      ? path + error.message.slice(LOCK_FILE.length)
      : `${path}: ${error.message}`
    throw new CliError(error.code, what, null, { cause: error })
  }
}

/** The tokenizer to compare in: `--tokenizer` when given, else the entry's (so a lock made with `estimate` checks as such). */
export function lockTokenizer(options: PromptOptions, entry: LockEntry | undefined): TokenizerName {
  if (options.tokenizerGiven || entry === undefined) return options.tokenizer
  return (TOKENIZERS as readonly string[]).includes(entry.tokenizer)
    ? (entry.tokenizer as TokenizerName)
    : options.tokenizer
}

/**
 * Reads the project's lock, picks the entry `--mode` asks for (`raw`;
 * `sysprompt` without it) and builds that entry's prompt, in the
 * tokenizer and the directory the entry records. For `diff --lock`.
 */
export async function buildWithLock(
  options: PromptOptions,
  env: Record<string, string | undefined>,
  raw: string | undefined,
): Promise<{
  project: ProjectPrompt
  entry: LockEntry
  key: string
  lockPath: string
  note?: string
}> {
  const root = await projectRoot(options.cwd, options.root)
  const { lock } = await readLock(root, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES)
  const key = entriesAsked(lock, raw ?? SYSPROMPT_ENTRY, lockKeys(lock))[0]!
  const entry = lock.entries[key]!
  const built = await buildEntry(
    { ...options, tokenizer: lockTokenizer(options, entry) },
    env,
    root,
    key,
    entry.cwd,
  )
  return {
    project: built.project,
    entry,
    key,
    lockPath: join(root, LOCK_FILE),
    ...(built.note === undefined ? {} : { note: built.note }),
  }
}

/** The key written by `check --update`: the `--mode` asked, else every entry of the lock (sysprompt's own when there is none). */
function keysToWrite(
  options: PromptOptions,
  raw: string | undefined,
  lock: PromptLock | undefined,
): string[] {
  if (raw !== undefined) return [entryKey(options.mode, options.harnessVersion)]
  const keys = lock === undefined ? [] : lockKeys(lock)
  return keys.length === 0 ? [SYSPROMPT_ENTRY] : keys
}

/** `sysprompt check`: compare the prompt with `sysprompt.lock` (golden prompts in CI); `--update` rewrites it. */
export function registerCheck(program: Command, ctx: CommandContext): void {
  addPromptOptions(
    program
      .command('check')
      .description(`compare the prompt with ${LOCK_FILE} in the project root (exit 1 on any difference)`)
      .option('--update', `write ${LOCK_FILE} from the current prompt`)
      .option(
        '--same <modes>',
        'instead of the lock: fail unless these harnesses (e.g. claude,codex,copilot) load the same instruction texts for each --path (default: the working directory)',
      ),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt check --update', `write ${LOCK_FILE} (commit it)`],
        ['sysprompt check', 'in CI: fail when the prompt changed'],
        ['sysprompt check --same claude,codex,copilot --path src/app.ts', 'one set of rules for every agent'],
        [
          'sysprompt check --set env:HOME_DIR=/workspace',
          'pin a value that differs between machines (prompt:cwd, the host, home and user are pinned already)',
        ],
      ]),
    )
    .action(async (raw: RawOptions, command: Command) => {
      const options = await readPromptOptions(raw, ctx.io.cwd, ctx.io.env)
      const print = printer(ctx, options.color)
      if (typeof raw.same === 'string') {
        if (raw.update === true)
          throw new UsageError('--same and --update do different checks', 'pass only one of them')
        await checkSame(ctx, options, parseModes(raw.same, '--same'))
        return
      }
      // The default `sysprompt` is not a mode asked: without --mode, every entry is compared (or rewritten).
      const modeAsked =
        command.getOptionValueSource('mode') === 'cli' && typeof raw.mode === 'string' ? raw.mode : undefined
      const root = await projectRoot(options.cwd, options.root)
      const lockPath = join(root, LOCK_FILE)
      const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
      if (raw.update === true) {
        const old = await readLock(root, maxBytes).catch(() => undefined)
        let lock = old?.lock
        const written: { key: string; compiled: CompiledPrompt; held: MachineValue[]; cwd: string }[] = []
        for (const key of keysToWrite(options, modeAsked, lock)) {
          const built = await buildEntry(options, ctx.io.env, root, key, undefined)
          const compiled = requireCompiled(built.project)
          lock = withLockEntry(
            lock,
            key,
            createLock(compiled, built.project.sources, built.machine, built.view),
          )
          const held = findMachineValues(compiled, machineValues(built.project.root, ctx.io.env, new Date()))
          written.push({ key, compiled, held, cwd: built.machine.cwd })
        }
        await writeFileSafely(lockPath, formatLock(lock!)).catch((error: unknown) => {
          if (!(error instanceof SafeWriteError)) throw error
          throw new CliError(
            `lock-${error.code}`,
            `${LOCK_FILE} was not written: ${error.message}`,
            error.code === 'target-is-link' || error.code === 'not-a-file'
              ? `remove ${lockPath} and run \`sysprompt check --update\` again`
              : 'fix the directory and run `sysprompt check --update` again',
            { cause: error },
          )
        })
        for (const w of written) {
          for (const v of w.held) {
            print.warn(
              `${w.key === SYSPROMPT_ENTRY ? '' : `${w.key}: `}section "${v.section}" holds the ${v.what} ${JSON.stringify(v.value)}, so ${LOCK_FILE} will not match on another machine or day; ` +
                'pin it with --set KEY=VALUE, or move it out of the system prompt',
            )
          }
        }
        const first = written[0]!
        const summary = {
          updated: true,
          lock: lockPath,
          version: 2,
          upgradedFrom: old?.version === 1 ? 1 : undefined,
          hash: first.compiled.hash,
          tokens: first.compiled.tokens,
          sections: first.compiled.sections.length,
          cwd: first.cwd,
          machineValues: written.flatMap((w) => w.held),
          entries: written.map((w) => ({
            key: w.key,
            hash: w.compiled.hash,
            tokens: w.compiled.tokens,
            sections: w.compiled.sections.length,
            cwd: w.cwd,
          })),
          kept: lockKeys(lock!).filter((k) => !written.some((w) => w.key === k)),
        }
        if (options.json) print.out(json(summary))
        else {
          for (const w of written) {
            const n = w.compiled.sections.length
            print.out(
              `wrote ${lockPath}${w.key === SYSPROMPT_ENTRY ? '' : ` entry ${w.key}`}: ${n} section${n === 1 ? '' : 's'}, ${groupDigits(w.compiled.tokens)} tokens (${w.compiled.tokenizer})\n`,
            )
          }
          if (summary.kept.length > 0) print.out(`kept the entries ${summary.kept.join(', ')}\n`)
          if (old?.version === 1) print.out(`rewrote ${LOCK_FILE} from format version 1 to version 2\n`)
        }
        ctx.exit(EXIT.ok)
        return
      }
      const { lock, version } = await readLock(root, maxBytes)
      if (version === 1 && !options.json)
        ctx.io.stderr.write(
          `sysprompt: note: ${LOCK_FILE} is in format version 1, read as the entry ${SYSPROMPT_ENTRY}; the next \`sysprompt check --update\` rewrites it as version 2\n`,
        )
      const results: { key: string; compiled: CompiledPrompt; entry: LockEntry; result: LockCheck }[] = []
      for (const key of entriesAsked(lock, modeAsked, lockKeys(lock))) {
        const entry = lock.entries[key]!
        const built = await buildEntry(
          { ...options, tokenizer: lockTokenizer(options, entry) },
          ctx.io.env,
          root,
          key,
          entry.cwd,
        )
        if (built.note !== undefined) ctx.io.stderr.write(`sysprompt: note: ${built.note}\n`)
        const compiled = requireCompiled(built.project)
        results.push({ key, compiled, entry, result: checkLock(compiled, entry, { key, view: built.view }) })
      }
      const ok = results.every((r) => r.result.ok)
      const differences = results.flatMap((r) => r.result.differences.map((d) => ({ entry: r.key, ...d })))
      const named = (key: string) => (key === SYSPROMPT_ENTRY ? '' : `${key}: `)
      if (options.json) {
        const first = results[0]!
        print.out(
          json({
            ok,
            lock: lockPath,
            hash: first.compiled.hash,
            lockHash: first.entry.hash,
            differences,
            entries: results.map((r) => ({
              key: r.key,
              ok: r.result.ok,
              hash: r.compiled.hash,
              lockHash: r.entry.hash,
              differences: r.result.differences,
            })),
          }),
        )
      } else {
        for (const r of results) {
          if (r.result.ok) {
            const view =
              r.entry.view === undefined
                ? ''
                : `; the harness view: ${groupDigits(r.entry.view.tokens)} tokens`
            print.out(
              r.key === SYSPROMPT_ENTRY
                ? `${print.paint('green', 'ok')}: the prompt matches ${lockPath} (${groupDigits(r.compiled.tokens)} tokens)\n`
                : `${print.paint('green', 'ok')}: ${r.key} matches its entry in ${lockPath} (${groupDigits(r.compiled.tokens)} tokens${view})\n`,
            )
          }
          for (const d of r.result.differences)
            print.out(`${print.paint('red', '✗')} ${named(r.key)}${d.message}\n`)
        }
        if (!ok) {
          const failed = results.filter((r) => !r.result.ok)
          const fix =
            failed.length === 1 && failed[0]!.key === SYSPROMPT_ENTRY
              ? '`sysprompt check --update`'
              : failed
                  .map(
                    (r) =>
                      `\`sysprompt check --update${r.key === SYSPROMPT_ENTRY ? '' : ` --mode ${r.key}`}\``,
                  )
                  .join(', ')
          ctx.io.stderr.write(
            `sysprompt: the prompt differs from ${LOCK_FILE} in ${differences.length} place${differences.length === 1 ? '' : 's'}; run ${fix} if the change is intended\n`,
          )
        }
      }
      ctx.exit(ok ? EXIT.ok : EXIT.findings)
    })
}
