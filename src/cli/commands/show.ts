import { type Command, Option } from 'commander'
import { toAnthropic, toGemini, toOpenAI } from '../../compile/index.js'
import { buildProject, cachePlan, type ProjectPrompt } from '../../node/project/project.js'
import { formatFragmentError } from '../../presets/index.js'
import { cliAdvice } from '../advice.js'
import { type CommandContext, examples, printer } from '../command.js'
import { EXIT, UsageError } from '../errors.js'
import { addPromptOptions, type RawOptions, readPromptOptions } from '../options.js'
import { json } from '../output.js'
import { requireCompiled } from '../require-compiled.js'
import { writeExact } from '../sanitize.js'

const FORMATS = ['text', 'json', 'anthropic', 'openai', 'gemini'] as const

/** Warnings worth seeing while the prompt still builds: fragments that did not load, compile warnings, why git values are absent. */
export function buildWarnings(project: ProjectPrompt): string[] {
  const errors = [...project.rules.errors, ...project.overrides.errors]
  const seen = new Set<string>()
  const out: string[] = []
  for (const e of errors) {
    const line = `${formatFragmentError(e)} (left out)`
    if (!seen.has(line)) out.push(line)
    seen.add(line)
  }
  for (const w of project.compiled?.warnings ?? []) out.push(cliAdvice(w.message))
  for (const d of project.resolverDiagnostics) out.push(d.message)
  return out
}

type Format = (typeof FORMATS)[number]

const PLACES = {
  'system-prompt': 'system prompt',
  'first-user-message': 'first user message',
  'separate-message': 'a message of its own',
  'tool-result': 'a tool result (late-bound, outside the cached prefix)',
} as const

/** The harness view as text: each part under a line saying where it lands, its role and tokens. */
function harnessText(project: ProjectPrompt): string {
  const { harness } = project.discovery
  if (harness.parts.length === 0) return `(${harness.mode} sends no instruction files here)\n`
  return harness.parts
    .map((p) => {
      const exact = p.exact ? '' : ', framing not reproduced'
      const head = `=== ${harness.mode}: ${PLACES[p.placement]}, ${p.role} role, ${p.tokens} tokens${exact} ===`
      return `${head}\n${p.text}${p.text.endsWith('\n') ? '' : '\n'}`
    })
    .join('\n')
}

/** `--format`, or `json` for `--json`; both naming different formats is a usage error. */
function chosenFormat(raw: RawOptions): Format {
  const format = raw.format as Format | undefined
  if (raw.json === true && format !== undefined && format !== 'json') {
    throw new UsageError(
      `--format ${format} and --json ask for different outputs`,
      `pass only one of them (--json is --format json)`,
    )
  }
  return format ?? (raw.json === true ? 'json' : 'text')
}

/** `sysprompt show`: the prompt this project would get, as text or as a provider request shape. */
export function registerShow(program: Command, ctx: CommandContext): void {
  addPromptOptions(
    program
      .command('show')
      .description('print the system prompt this project would get')
      .addOption(
        new Option(
          '--format <format>',
          'text (default): the prompt itself; json: the compiled prompt (what `diff` reads), as --json; anthropic, openai, gemini: the request fields',
        ).choices(FORMATS),
      )
      .option(
        '--as-harness',
        'print what the --mode harness itself sends for its instruction files, part by part, and where each part lands (with --json: the parts as data)',
      )
      .option(
        '--raw',
        'on a terminal too, print the text byte for byte, control characters and escape sequences included (into a file or a pipe it always is; on a terminal they are shown as \\x1b, \\u009b, <U+202E>)',
      ),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt show', 'the prompt for the current directory'],
        ['sysprompt show --cwd packages/api --path src/a.test.ts', 'as an agent working on that file'],
        ['sysprompt show --format json > before.json', 'the compiled prompt, for `sysprompt diff`'],
        [
          'sysprompt show --format anthropic --model claude-sonnet-4-5',
          'system blocks, cache_control where the prefix reaches the minimum',
        ],
        [
          'sysprompt show --preset layered --mode codex',
          'the layered preset with instructions as Codex finds them',
        ],
        ['sysprompt show --mode claude --as-harness', 'the instruction part exactly as Claude Code sends it'],
        ['sysprompt show > prompt.txt', 'byte for byte (its sha256 is the hash); a terminal sees escapes'],
      ]),
    )
    .action(async (raw: RawOptions) => {
      const format = chosenFormat(raw)
      const options = await readPromptOptions(raw, ctx.io.cwd, ctx.io.env)
      const print = printer(ctx, options.color)
      const project = await buildProject(options, ctx.io.env)
      // The prompt byte for byte into a file or a pipe, or with --raw; on a terminal with its escapes made visible.
      const exact = raw.raw === true || ctx.io.stdout.isTTY !== true
      const text = (body: string) => (exact ? writeExact(ctx.io.stdout, body) : print.out(body))
      if (raw.asHarness === true) {
        if (format !== 'text' && format !== 'json')
          throw new UsageError(
            `--as-harness prints text or JSON, not ${format}`,
            'drop --format or use --json',
          )
        // What the view's reader must know (pi: the untrusted view) goes to stderr: stdout stays the harness's text.
        for (const note of project.discovery.harness.notes ?? []) print.warn(note)
        if (format === 'json') print.out(json(project.discovery.harness))
        else text(harnessText(project))
        ctx.exit(EXIT.ok)
        return
      }
      const compiled = requireCompiled(project)
      for (const warning of buildWarnings(project)) print.warn(warning)
      if (format === 'text') {
        // Into a file or a pipe (or with --raw) the prompt byte for byte: `sysprompt show > prompt.txt` has its
        // hash. On a terminal, escapes shown and one final line break, so the shell's prompt starts cleanly.
        text(compiled.text)
        if (!exact && compiled.text.length > 0 && !compiled.text.endsWith('\n')) print.out('\n')
      } else if (format === 'json') {
        print.out(json(compiled))
      } else if (format === 'anthropic') {
        // Marks only where the prefix reaches the model's minimum (the one verdict planCache gives).
        const plan = cachePlan(
          { ...project, options: { ...options, provider: 'anthropic', providerGiven: true } },
          compiled,
        )
        print.out(json(toAnthropic(compiled, { breakpoints: plan.marks })))
      } else {
        print.out(json(format === 'openai' ? toOpenAI(compiled) : toGemini(compiled)))
      }
      ctx.exit(EXIT.ok)
    })
}
