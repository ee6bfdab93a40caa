import type { Command } from 'commander'
import { prefixTokens } from '../../compile/diff.js'
import { type CompiledPrompt, diffCompiled, type PromptDiff, type PromptLock } from '../../compile/index.js'
import { groupDigits } from '../../node/index.js'
import { jsonErrorWithoutExcerpt, readCliFileOrThrow } from '../../node/project/read-file.js'
import { type CommandContext, examples, printer } from '../command.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { addPromptOptions, existingFile, type RawOptions, readPromptOptions } from '../options.js'
import { json, type Paint, type Tone } from '../output.js'
import { requireCompiled } from '../require-compiled.js'
import { buildWithLock } from './check.js'

function isCompiled(value: unknown): value is CompiledPrompt {
  if (value === null || typeof value !== 'object') return false
  const v = value as Record<string, unknown>
  return (
    typeof v.text === 'string' &&
    typeof v.tokens === 'number' &&
    Array.isArray(v.sections) &&
    v.sections.every((s) => {
      const o = s as Record<string, unknown>
      return (
        typeof o?.name === 'string' &&
        typeof o.start === 'number' &&
        typeof o.end === 'number' &&
        typeof o.hash === 'string'
      )
    })
  )
}

/** A compiled prompt holds the whole prompt text and its sections: more room than the 1 MiB of a template. */
const COMPILED_MAX_BYTES = 64 << 20

async function readCompiled(shellCwd: string, name: string): Promise<CompiledPrompt> {
  const path = await existingFile(shellCwd, name, 'diff:')
  const text = await readCliFileOrThrow(
    { path, root: null, maxBytes: COMPILED_MAX_BYTES },
    name,
    'write it with `sysprompt show --format json > FILE`',
  )
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new CliError(
      'invalid-compiled',
      `${name} is not JSON (${jsonErrorWithoutExcerpt(cause)})`,
      'write it with `sysprompt show --format json > FILE`',
      { cause },
    )
  }
  if (!isCompiled(value)) {
    throw new CliError(
      'invalid-compiled',
      `${name} is not a compiled prompt`,
      'write it with `sysprompt show --format json > FILE`',
    )
  }
  return value
}

/**
 * The cache view of the current prompt against its lock (which records
 * sections, not text): the first section that differs from the lock's
 * sequence, the tokens of the sections before it, and the sections added,
 * removed and changed.
 */
export function diffAgainstLock(compiled: CompiledPrompt, lock: PromptLock): PromptDiff {
  const locked = new Map(lock.sections.map((s) => [s.name, s]))
  const current = new Set(compiled.sections.map((s) => s.name))
  let same = 0
  while (
    same < compiled.sections.length &&
    same < lock.sections.length &&
    compiled.sections[same]!.name === lock.sections[same]!.name &&
    compiled.sections[same]!.hash === lock.sections[same]!.hash
  )
    same++
  const added = compiled.sections.filter((s) => !locked.has(s.name)).map((s) => s.name)
  const changed = compiled.sections
    .filter((s) => locked.has(s.name) && locked.get(s.name)!.hash !== s.hash)
    .map((s) => s.name)
  const removed = lock.sections.filter((s) => !current.has(s.name)).map((s) => s.name)
  const identical = compiled.hash === lock.hash
  const next = compiled.sections[same]
  return {
    identical,
    firstDifference: identical ? null : (next?.start ?? compiled.text.length),
    section: identical ? null : (next?.name ?? null),
    commonPrefixTokens: identical ? compiled.tokens : prefixTokens(compiled, same),
    added,
    removed,
    changed,
  }
}

/**
 * What `diff --lock --json` prints: the diff, marked as made against the
 * lock. The lock records sections, not text, so `firstDifference` is where
 * the first changed section starts in the current prompt, not the exact
 * character (`firstDifferenceIs: 'section-start'`).
 */
interface LockDiff extends PromptDiff {
  against: 'lock'
  lock: string
  firstDifferenceIs: 'section-start'
}

const list = (names: string[]) => (names.length === 0 ? '—' : names.join(', '))

/** The first row: the exact character between two files; only the section against a lock, which has no text. */
function firstChange(diff: PromptDiff, againstLock: boolean): [label: string, value: string] {
  if (againstLock) {
    return [
      'first changed section:',
      diff.section ?? 'none: the prompt ends where the lock lists more sections',
    ]
  }
  const where = diff.section === null ? 'where the new prompt ends' : `in section ${diff.section}`
  return ['first change:', `character ${diff.firstDifference}, ${where}`]
}

function render(diff: PromptDiff, againstLock: boolean, paint: Paint): string {
  if (diff.identical)
    return `${paint('green', 'identical')}: ${groupDigits(diff.commonPrefixTokens)} tokens, all reusable from cache\n`
  const rows: [label: string, value: string, tone: Tone][] = [
    [...firstChange(diff, againstLock), 'plain'],
    [
      'cached prefix:',
      `${groupDigits(diff.commonPrefixTokens)} tokens still served from the provider's cache`,
      'plain',
    ],
    ['added:', list(diff.added), 'green'],
    ['removed:', list(diff.removed), 'red'],
    ['changed:', list(diff.changed), 'yellow'],
  ]
  // Labels padded to the widest, then one space: `label: value` reads as a sentence on each line.
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows
    .map(([label, value, tone]) => `${paint('bold', label.padEnd(width))} ${paint(tone, value)}\n`)
    .join('')
}

/** `sysprompt diff`: what changed between two compiled prompts, from the provider cache's point of view. */
export function registerDiff(program: Command, ctx: CommandContext): void {
  addPromptOptions(
    program
      .command('diff')
      .description('explain the difference between two compiled prompts (exit 1 when they differ)')
      .argument('[before]', 'a compiled prompt (JSON from `sysprompt show --format json`)')
      .argument('[after]', 'another compiled prompt')
      .option('--lock', 'compare the current prompt with sysprompt.lock instead'),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt show --format json > before.json', 'save the prompt …'],
        ['sysprompt show --format json --model gpt-5 > after.json', '… and another one'],
        [
          'sysprompt diff before.json after.json',
          'first change, cached prefix, sections added/removed/changed',
        ],
        ['sysprompt diff --lock', 'the current prompt against sysprompt.lock'],
      ]),
    )
    .action(async (before: string | undefined, after: string | undefined, raw: RawOptions) => {
      let diff: PromptDiff
      let lockPath: string | undefined
      if (raw.lock === true) {
        if (before !== undefined)
          throw new UsageError('diff --lock takes no files', 'drop the file arguments or --lock')
        const options = await readPromptOptions(raw, ctx.io.cwd)
        const built = await buildWithLock(options, ctx.io.env, true)
        diff = diffAgainstLock(requireCompiled(built.project), built.lock!)
        lockPath = built.lockPath
      } else {
        if (before === undefined || after === undefined) {
          throw new UsageError(
            'diff needs two compiled-prompt files, or --lock',
            'run `sysprompt diff before.json after.json`',
          )
        }
        diff = diffCompiled(await readCompiled(ctx.io.cwd, before), await readCompiled(ctx.io.cwd, after))
      }
      const print = printer(ctx, raw.color === false ? false : undefined)
      const data: PromptDiff | LockDiff =
        lockPath === undefined
          ? diff
          : { ...diff, against: 'lock', lock: lockPath, firstDifferenceIs: 'section-start' }
      print.out(raw.json === true ? json(data) : render(diff, lockPath !== undefined, print.paint))
      ctx.exit(diff.identical ? EXIT.ok : EXIT.findings)
    })
}
