import type { Command } from 'commander'
import { shown } from '../../node/project/paths.js'
import { buildProject } from '../../node/project/project.js'
import { cliAdvice } from '../advice.js'
import { type CommandContext, examples, printer } from '../command.js'
import { EXIT, UsageError } from '../errors.js'
import { DEFAULT_MAX_TOKENS, type Finding, runLint } from '../lint/index.js'
import { parseModes } from '../modes-option.js'
import { addPromptOptions, type RawOptions, readPromptOptions } from '../options.js'
import { json, type Paint } from '../output.js'

function location(f: Finding, base: string): string {
  if (f.file === undefined) return f.section === undefined ? 'prompt' : `section ${f.section}`
  return `${shown(f.file, base)}:${f.line ?? 1}:${f.column ?? 1}`
}

function render(findings: readonly Finding[], base: string, paint: Paint): string {
  const lines = findings.map(
    (f) =>
      `${paint('bold', location(f, base))}: ${paint(f.severity === 'error' ? 'red' : 'yellow', f.severity)}: ${cliAdvice(f.message)} ${paint('dim', `[${f.code}]`)}`,
  )
  const errors = findings.filter((f) => f.severity === 'error').length
  const warnings = findings.length - errors
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  lines.push(
    findings.length === 0
      ? paint('green', 'no problems found')
      : `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`,
  )
  return `${lines.join('\n')}\n`
}

function maxTokens(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_TOKENS
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(
      `--max-tokens ${String(value)} is not a positive whole number`,
      `pass e.g. --max-tokens ${DEFAULT_MAX_TOKENS}`,
    )
  }
  return n
}

/** `sysprompt lint`: every problem of the prompt and of the files it includes, with file:line:col. */
export function registerLint(program: Command, ctx: CommandContext): void {
  addPromptOptions(
    program
      .command('lint')
      .description(
        'report template, variable, size, cache, Unicode, secret and special-token problems (exit 1 on errors)',
      )
      .option('--max-tokens <n>', `warn when the prompt is larger (default ${DEFAULT_MAX_TOKENS})`)
      .option(
        '--modes <list>',
        'harnesses that must see the same instructions, e.g. claude,codex,copilot (default: modes: in .sysprompt/config)',
      ),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt lint', 'the current project'],
        ['sysprompt lint --template prompt.md', 'a template file; positions are lines of that file'],
        ['sysprompt lint --provider openai --max-tokens 4000', 'with another cache minimum and budget'],
        [
          'sysprompt lint --modes claude,codex,copilot',
          'also: do these harnesses read the same instructions?',
        ],
        ['sysprompt lint --json', 'findings as data: [{ severity, code, message, file, line, column }]'],
      ]),
    )
    .action(async (raw: RawOptions) => {
      const limit = maxTokens(raw.maxTokens)
      const modes = typeof raw.modes === 'string' ? parseModes(raw.modes) : undefined
      const options = await readPromptOptions(raw, ctx.io.cwd, ctx.io.env)
      const print = printer(ctx, options.color)
      const project = await buildProject(options, ctx.io.env)
      const findings = await runLint(project, { maxTokens: limit, ...(modes === undefined ? {} : { modes }) })
      print.out(options.json ? json(findings) : render(findings, ctx.io.cwd, print.paint))
      ctx.exit(findings.some((f) => f.severity === 'error') ? EXIT.findings : EXIT.ok)
    })
}
