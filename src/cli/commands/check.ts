import { join } from 'node:path'
import type { Command } from 'commander'
import {
  checkLock,
  createLock,
  formatLock,
  LockError,
  type LockMachine,
  type PromptLock,
  parseLock,
  type TokenizerName,
} from '../../compile/index.js'
import { groupDigits, SafeWriteError, writeFileSafely } from '../../node/index.js'
import { buildProject, type ProjectPrompt } from '../../node/project/project.js'
import { DEFAULT_MAX_FILE_BYTES, jsonErrorWithoutExcerpt, readCliFile } from '../../node/project/read-file.js'
import { projectRoot } from '../../node/project/root.js'
import { type CommandContext, examples, printer } from '../command.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { findMachineValues, lockOptions, machineValues } from '../lock-machine.js'
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
 * `CliError` that says why, never echoing the file's bytes.
 */
export async function readLock(root: string, maxBytes: number): Promise<PromptLock> {
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
    return parseLock(text)
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

/** The tokenizer to compare in: `--tokenizer` when given, else the lock's (so a lock made with `estimate` checks as such). */
export function lockTokenizer(options: PromptOptions, lock: PromptLock | undefined): TokenizerName {
  if (options.tokenizerGiven || lock === undefined) return options.tokenizer
  return (TOKENIZERS as readonly string[]).includes(lock.tokenizer)
    ? (lock.tokenizer as TokenizerName)
    : options.tokenizer
}

/**
 * Reads the lock of the project and builds the prompt in the tokenizer the
 * lock counts in (unless `--tokenizer` says otherwise). With `required`, a
 * missing or broken lock is an error; without, it is `undefined`.
 */
export async function buildWithLock(
  options: PromptOptions,
  env: Record<string, string | undefined>,
  required: boolean,
): Promise<{
  project: ProjectPrompt
  lock: PromptLock | undefined
  lockPath: string
  machine: LockMachine
  note?: string
}> {
  const root = await projectRoot(options.cwd, options.root)
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const lock = required
    ? await readLock(root, maxBytes)
    : await readLock(root, maxBytes).catch(() => undefined)
  // Writing a lock records this run's directory; checking one builds for the directory it records.
  const pinned = await lockOptions(options, root, required ? lock?.cwd : undefined)
  const project = await buildProject({ ...pinned.options, tokenizer: lockTokenizer(options, lock) }, env)
  return {
    project,
    lock,
    lockPath: join(root, LOCK_FILE),
    machine: pinned.machine,
    ...(pinned.note === undefined ? {} : { note: pinned.note }),
  }
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
    .action(async (raw: RawOptions) => {
      const options = await readPromptOptions(raw, ctx.io.cwd, ctx.io.env)
      const print = printer(ctx, options.color)
      if (typeof raw.same === 'string') {
        if (raw.update === true)
          throw new UsageError('--same and --update do different checks', 'pass only one of them')
        await checkSame(ctx, options, parseModes(raw.same, '--same'))
        return
      }
      const update = raw.update === true
      const { project, lock, lockPath, machine, note } = await buildWithLock(options, ctx.io.env, !update)
      if (note !== undefined) ctx.io.stderr.write(`sysprompt: note: ${note}\n`)
      if (update) {
        const compiled = requireCompiled(project)
        await writeFileSafely(lockPath, formatLock(createLock(compiled, project.sources, machine))).catch(
          (error: unknown) => {
            if (!(error instanceof SafeWriteError)) throw error
            throw new CliError(
              `lock-${error.code}`,
              `${LOCK_FILE} was not written: ${error.message}`,
              error.code === 'target-is-link' || error.code === 'not-a-file'
                ? `remove ${lockPath} and run \`sysprompt check --update\` again`
                : 'fix the directory and run `sysprompt check --update` again',
              { cause: error },
            )
          },
        )
        const held = findMachineValues(compiled, machineValues(project.root, ctx.io.env, new Date()))
        for (const v of held) {
          print.warn(
            `section "${v.section}" holds the ${v.what} ${JSON.stringify(v.value)}, so ${LOCK_FILE} will not match on another machine or day; ` +
              'pin it with --set KEY=VALUE, or move it out of the system prompt',
          )
        }
        const summary = {
          updated: true,
          lock: lockPath,
          hash: compiled.hash,
          tokens: compiled.tokens,
          sections: compiled.sections.length,
          cwd: machine.cwd,
          machineValues: held,
        }
        print.out(
          options.json
            ? json(summary)
            : `wrote ${lockPath}: ${compiled.sections.length} section${compiled.sections.length === 1 ? '' : 's'}, ${groupDigits(compiled.tokens)} tokens (${compiled.tokenizer})\n`,
        )
        ctx.exit(EXIT.ok)
        return
      }
      const compiled = requireCompiled(project)
      const result = checkLock(compiled, lock!)
      if (options.json) {
        print.out(
          json({
            ok: result.ok,
            lock: lockPath,
            hash: compiled.hash,
            lockHash: lock!.hash,
            differences: result.differences,
          }),
        )
      } else if (result.ok) {
        print.out(
          `${print.paint('green', 'ok')}: the prompt matches ${lockPath} (${groupDigits(compiled.tokens)} tokens)\n`,
        )
      } else {
        for (const d of result.differences) print.out(`${print.paint('red', '✗')} ${d.message}\n`)
        ctx.io.stderr.write(
          `sysprompt: the prompt differs from ${LOCK_FILE} in ${result.differences.length} place${result.differences.length === 1 ? '' : 's'}; run \`sysprompt check --update\` if the change is intended\n`,
        )
      }
      ctx.exit(result.ok ? EXIT.ok : EXIT.findings)
    })
}
