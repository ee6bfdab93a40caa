import type { Command } from 'commander'
import { prefixTokens } from '../../compile/diff.js'
import {
  type CompiledPrompt,
  cacheVerdict,
  diffCompiled,
  type LockEntry,
  type PromptDiff,
} from '../../compile/index.js'
import { fileChanges, lineRange, sectionFiles } from '../../compile/lock-files.js'
import { groupDigits } from '../../node/index.js'
import { cacheOptions } from '../../node/project/project.js'
import { jsonErrorWithoutExcerpt, readCliFileOrThrow } from '../../node/project/read-file.js'
import { type CommandContext, examples, printer } from '../command.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import {
  addPromptOptions,
  existingFile,
  type PromptOptions,
  type RawOptions,
  readPromptOptions,
} from '../options.js'
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
export function diffAgainstLock(compiled: CompiledPrompt, lock: LockEntry): PromptDiff {
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

/** The included file of `compiled` that holds string index `at` (the innermost: an import before its importer). */
export function fileAt(
  compiled: CompiledPrompt,
  at: number | null,
): { path: string; line: number } | undefined {
  if (at === null) return undefined
  let best: { path: string; start: number; end: number } | undefined
  for (const s of compiled.sections) {
    for (const f of s.files ?? []) {
      const inside = at >= (f.headerStart ?? f.start) && at <= f.end
      if (inside && (best === undefined || f.end - f.start < best.end - best.start)) best = f
    }
  }
  if (best === undefined) return undefined
  return { path: best.path, line: compiled.text.slice(0, at).split('\n').length }
}

/** The first included file of the first changed section that differs from the lock, with its lines in the prompt. */
export function fileAgainstLock(
  compiled: CompiledPrompt,
  lock: LockEntry,
  section: string | null,
): { path: string; lines: [number, number] } | undefined {
  const current = compiled.sections.find((s) => s.name === section)
  const locked = lock.sections.find((s) => s.name === section)
  if (current === undefined || locked?.files === undefined) return undefined
  const now = sectionFiles(compiled, current)
  if (now === undefined || now.textHash !== locked.textHash) return undefined
  const first = fileChanges(current.name, locked.files, now.files)[0]
  return first === undefined ? undefined : { path: first.path, lines: first.lines }
}

const list = (names: string[]) => (names.length === 0 ? '—' : names.join(', '))

/** The first row: the exact character between two files; only the section against a lock, which has no text. */
function firstChange(diff: ShownDiff, againstLock: boolean): [label: string, value: string] {
  if (againstLock) {
    const file = diff.file === undefined ? '' : `, in ${diff.file} (prompt ${lineRange(diff.lines!)})`
    return [
      'first changed section:',
      diff.section === null
        ? 'none: the prompt ends where the lock lists more sections'
        : `${diff.section}${file}`,
    ]
  }
  const where = diff.section === null ? 'where the new prompt ends' : `in section ${diff.section}`
  const file = diff.file === undefined ? '' : `, ${diff.file} (prompt line ${diff.line})`
  return ['first change:', `character ${groupDigits(diff.firstDifference ?? 0)}, ${where}${file}`]
}

/** A diff with the included file the first change falls in, when it falls in one. */
type ShownDiff = PromptDiff & { file?: string; line?: number; lines?: [number, number] }

/** What the provider does with the common prefix: the one verdict (`cacheVerdict`), for the provider and model named. */
interface DiffCache {
  provider: string
  model: string | null
  /** Whether a provider or model was named; without, no verdict is given. */
  named: boolean
  minTokens: number
  /** The common prefix as the provider counts it (with `--base-tokens`). */
  tokens: number
  cacheable: boolean
}

function cacheOf(diff: PromptDiff, options: PromptOptions): DiffCache {
  const plan = cacheOptions(options)
  const verdict = cacheVerdict(diff.commonPrefixTokens, plan)
  return {
    provider: plan.provider,
    model: plan.model ?? null,
    named: plan.minimumWarnings !== false,
    minTokens: verdict.minTokens,
    tokens: verdict.tokens,
    cacheable: verdict.cacheable,
  }
}

function cacheWords(diff: PromptDiff, cache: DiffCache): string {
  const n = groupDigits(diff.commonPrefixTokens)
  const of = `${cache.provider}${cache.model === null ? '' : ` (${cache.model})`}`
  if (!cache.named)
    return `${n} tokens in common; pass --provider or --model to know whether a provider serves them from cache`
  if (diff.commonPrefixTokens === 0) return 'nothing: the change is at the very start'
  if (!cache.cacheable) {
    return `${n} tokens in common, below the ${groupDigits(cache.minTokens)}-token minimum of ${of}: nothing is served from cache`
  }
  return `${n} tokens still served from ${of}'s cache`
}

function render(diff: ShownDiff, againstLock: boolean, paint: Paint, cache: DiffCache): string {
  if (diff.identical) {
    const n = groupDigits(diff.commonPrefixTokens)
    const of = `${cache.provider}${cache.model === null ? '' : ` (${cache.model})`}`
    const words = !cache.named
      ? `${n} tokens; pass --provider or --model to know whether a provider serves them from cache`
      : cache.cacheable
        ? `${n} tokens, all reusable from ${of}'s cache`
        : `${n} tokens, below the ${groupDigits(cache.minTokens)}-token minimum of ${of}: nothing is served from cache`
    return `${paint('green', 'identical')}: ${words}\n`
  }
  const rows: [label: string, value: string, tone: Tone][] = [
    [...firstChange(diff, againstLock), 'plain'],
    ['cached prefix:', cacheWords(diff, cache), 'plain'],
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
    .action(
      async (before: string | undefined, after: string | undefined, raw: RawOptions, command: Command) => {
        let diff: ShownDiff
        let lockPath: string | undefined
        const options = await readPromptOptions(raw, ctx.io.cwd, ctx.io.env)
        if (raw.lock === true) {
          if (before !== undefined)
            throw new UsageError('diff --lock takes no files', 'drop the file arguments or --lock')
          const built = await buildWithLock(
            options,
            ctx.io.env,
            command.getOptionValueSource('mode') === 'cli' && typeof raw.mode === 'string'
              ? raw.mode
              : undefined,
          )
          if (built.note !== undefined) ctx.io.stderr.write(`sysprompt: note: ${built.note}\n`)
          const compiled = requireCompiled(built.project)
          diff = diffAgainstLock(compiled, built.entry)
          const file = fileAgainstLock(compiled, built.entry, diff.section)
          if (file !== undefined) diff = { ...diff, file: file.path, lines: file.lines }
          lockPath = built.lockPath
        } else {
          if (before === undefined || after === undefined) {
            throw new UsageError(
              'diff needs two compiled-prompt files, or --lock',
              'run `sysprompt diff before.json after.json`',
            )
          }
          const b = await readCompiled(ctx.io.cwd, after)
          diff = diffCompiled(await readCompiled(ctx.io.cwd, before), b)
          const file = fileAt(b, diff.firstDifference)
          if (file !== undefined) diff = { ...diff, file: file.path, line: file.line }
        }
        const print = printer(ctx, raw.color === false ? false : undefined)
        const cache = cacheOf(diff, options)
        const data: (ShownDiff | LockDiff) & { cache: DiffCache } =
          lockPath === undefined
            ? { ...diff, cache }
            : { ...diff, against: 'lock', lock: lockPath, firstDifferenceIs: 'section-start', cache }
        print.out(raw.json === true ? json(data) : render(diff, lockPath !== undefined, print.paint, cache))
        ctx.exit(diff.identical ? EXIT.ok : EXIT.findings)
      },
    )
}
