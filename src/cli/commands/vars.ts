import type { Command } from 'commander'
import { groupDigits } from '../../node/index.js'
import { buildProject, type ProjectPrompt } from '../../node/project/project.js'
import type { Stability, VariableInfo } from '../../registry/index.js'
import { utf8Length } from '../../shared/hash.js'
import { compileTemplate, keyNamespace } from '../../template/index.js'
import { type CommandContext, examples, printer } from '../command.js'
import { CliError, EXIT } from '../errors.js'
import { addPromptOptions, type RawOptions, readPromptOptions } from '../options.js'
import { type Cell, clip, json, table } from '../output.js'

/** One variable the prompt references, with its current value. */
export interface ReferencedVariable {
  key: string
  /** `null` when absent (no value, or nothing answers the key). */
  value: string | null
  stability: Stability | null
  /** Whether a resolver or a registered variable answers it. */
  known: boolean
  /** The sections that reference it, in prompt order. */
  sections: string[]
}

/**
 * The keys the prompt's sections reference, in first-reference order, with
 * their values. Plain names the presets register to carry their own
 * section texts are left out: they are the preset's words, not variables a
 * user sets.
 */
export function referencedVariables(project: ProjectPrompt): ReferencedVariable[] {
  const assembly = project.assembly
  if (assembly === undefined) {
    throw new CliError(
      project.failure?.code ?? 'build',
      project.failure?.message ?? 'the prompt could not be assembled',
      'run `sysprompt lint` to see every problem',
    )
  }
  const found = new Map<string, ReferencedVariable>()
  for (const section of assembly.sections) {
    for (const key of compileTemplate(section.text, { dialect: section.dialect, strict: false }).variables) {
      const registered = Object.hasOwn(assembly.variables, key)
      if (keyNamespace(key) === undefined && registered && !project.options.set.has(key)) continue
      let entry = found.get(key)
      if (entry === undefined) {
        const value = registered ? (assembly.variables[key] ?? null) : null
        const stability = assembly.stability[key] ?? project.catalog.info(key)?.stability ?? null
        entry = {
          key,
          value,
          stability,
          known: keyNamespace(key) === undefined ? registered : project.catalog.knows(key),
          sections: [],
        }
        found.set(key, entry)
      }
      if (!entry.sections.includes(section.name)) entry.sections.push(section.name)
    }
  }
  return [...found.values()]
}

const VALUE_CELLS = 60

function shownValue(v: ReferencedVariable): Cell {
  if (!v.known) return { text: '(unknown: nothing answers this key)', tone: 'red' }
  if (v.value === null) return { text: '(absent)', tone: 'dim' }
  const bytes = utf8Length(v.value)
  const lines = v.value.split('\n').length
  const clipped = clip(v.value, VALUE_CELLS)
  return { text: clipped === v.value ? clipped : `${clipped} (${lines} lines, ${groupDigits(bytes)} bytes)` }
}

/** `sysprompt vars`: the variables the prompt references with their values, and every key available. */
export function registerVars(program: Command, ctx: CommandContext): void {
  addPromptOptions(
    program
      .command('vars')
      .description('list the variables the prompt uses, their values, and every key available'),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt vars', 'values as this project would get them'],
        ['sysprompt vars --json', 'full values and the catalog as data'],
        ['sysprompt vars --env CI --template my-template.md', 'allow env:CI for a template that uses it'],
      ]),
    )
    .action(async (raw: RawOptions) => {
      const options = await readPromptOptions(raw, ctx.io.cwd, ctx.io.env)
      const print = printer(ctx, options.color)
      const project = await buildProject(options, ctx.io.env)
      const referenced = referencedVariables(project)
      const catalog: VariableInfo[] = project.catalog.infos
      if (options.json) {
        print.out(json({ referenced, catalog }))
        ctx.exit(EXIT.ok)
        return
      }
      const bold = (text: string): Cell => ({ text, tone: 'bold' })
      const out: string[] = [print.paint('bold', 'Variables the prompt uses')]
      if (referenced.length === 0) out.push('  (none)')
      else {
        const rows: (Cell | string)[][] = [[bold('key'), bold('stability'), bold('value')]]
        for (const v of referenced) rows.push([v.key, v.stability ?? '', shownValue(v)])
        out.push(...table(rows, ['left', 'left', 'left'], print.paint).map((l) => `  ${l}`))
      }
      out.push('', print.paint('bold', 'Available variables'))
      const rows: (Cell | string)[][] = [[bold('key'), bold('stability'), bold('description')]]
      for (const info of catalog) rows.push([info.key, info.stability, clip(info.description, 90)])
      out.push(...table(rows, ['left', 'left', 'left'], print.paint).map((l) => `  ${l}`))
      print.out(`${out.join('\n')}\n`)
      ctx.exit(EXIT.ok)
    })
}
