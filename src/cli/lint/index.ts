import type { InstructionMode } from '../../node/instructions/discovery-options.js'
import type { ProjectPrompt } from '../../node/project/project.js'
import { keyNamespace } from '../../template/index.js'
import { tokenizeBracket } from '../../template/tokenize-bracket.js'
import { tokenizeMustache } from '../../template/tokenize-mustache.js'
import { lintConventions } from './conventions.js'
import { fileVariableReasons } from './file-variables.js'
import { readIncludedFiles } from './included-files.js'
import { lintFragmentErrors, lintInstructions } from './instructions.js'
import { lintLateBoundRules } from './late-bound.js'
import { lintBudget, lintCache, lintCompileWarnings } from './prompt.js'
import { scanSecretsWithPreset } from './secrets.js'
import { scanSpecialTokens } from './special-tokens.js'
import { type KeyLookup, lintTemplate, type TemplateInput, unknownWhy } from './template.js'
import { type Finding, locate } from './types.js'
import { scanUnicode } from './unicode.js'

export { DEFAULT_MAX_TOKENS } from './prompt.js'
export type { Finding, Severity } from './types.js'

/** Options of {@link runLint}. */
export interface LintOptions {
  /** A prompt over this many tokens is a warning. */
  maxTokens: number
  /** Harnesses that must see the same instructions (`--modes`); else `.sysprompt/config`'s `modes:`. */
  modes?: readonly InstructionMode[]
}

function keyLookup(project: ProjectPrompt): KeyLookup {
  const { catalog, options, assembly } = project
  const keysOf = (ns: string) => catalog.infos.filter((i) => keyNamespace(i.key) === ns).map((i) => i.key)
  return (key) => {
    const info = catalog.info(key)
    if (info !== undefined) return { known: true, stability: assembly?.stability[key] ?? info.stability }
    if (keyNamespace(key) === undefined && options.set.has(key)) return { known: true, stability: 'session' }
    return { known: false, why: unknownWhy(key, catalog.namespaces, keysOf) }
  }
}

/** The templates of this project, in files: the chosen template (unless built in) and every rule. */
function templates(project: ProjectPrompt): TemplateInput[] {
  const out: TemplateInput[] = []
  const t = project.template
  if (t !== undefined && !t.builtin)
    out.push({ file: t.file, body: t.body, bodyLine: t.bodyLine, dialect: t.dialect })
  for (const rule of project.rules.list) {
    out.push({
      file: rule.source,
      body: rule.body,
      bodyLine: rule.bodyLine,
      dialect: rule.dialect ?? 'bracket',
    })
  }
  return out
}

/** Secrets that reach the prompt through a variable value (`env:`, `--set`), not through a scanned file. */
async function promptSecrets(project: ProjectPrompt, known: ReadonlySet<string>): Promise<Finding[]> {
  const compiled = project.compiled
  if (compiled === undefined) return []
  return (await scanSecretsWithPreset(compiled.text))
    .filter((hit) => !known.has(hit.secret))
    .map((hit) => {
      const section = compiled.sections.find((s) => hit.offset >= s.start && hit.offset < s.end)?.name
      return {
        severity: hit.severity,
        code: hit.code,
        message: `${hit.message} (it comes from a variable value, not from a file)`,
        ...(section === undefined ? {} : { section }),
      }
    })
}

function sortFindings(findings: Finding[]): Finding[] {
  const seen = new Set<string>()
  const unique = findings.filter((f) => {
    const key = `${f.file ?? ''}:${f.line ?? ''}:${f.column ?? ''}:${f.code}:${f.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const located = unique.filter((f) => f.file !== undefined)
  located.sort((a, b) =>
    a.file !== b.file
      ? a.file! < b.file!
        ? -1
        : 1
      : (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
  )
  return [...located, ...unique.filter((f) => f.file === undefined)]
}

/**
 * Every rule of SPEC §9 over the project: fragment and front-matter errors,
 * template diagnostics, unknown variables and `turn` data (per template
 * file), invisible or bidirectional Unicode, likely secrets and special
 * tokens in every included file, instruction-file problems, then, on the
 * compiled prompt, size over budget, cache warnings and secrets that came
 * in through variable values; and the cross-convention rule findings
 * (`conventions.ts`). Findings with a file come first, by file,
 * line and column.
 */
export async function runLint(project: ProjectPrompt, options: LintOptions): Promise<Finding[]> {
  const files = await readIncludedFiles(project)
  const findings: Finding[] = [...lintFragmentErrors(project)]
  const lookup = keyLookup(project)
  const inputs = templates(project)
  const fileKeys = inputs.flatMap((t) =>
    (t.dialect === 'mustache' ? tokenizeMustache(t.body) : tokenizeBracket(t.body)).tags.map(
      (tag) => tag.key,
    ),
  )
  const absent = await fileVariableReasons(project, fileKeys)
  for (const input of inputs) findings.push(...lintTemplate(input, lookup, absent))
  const fileSecrets = new Set<string>()
  for (const file of files) {
    const secrets = await scanSecretsWithPreset(file.text)
    for (const s of secrets) fileSecrets.add(s.secret)
    const hits = [
      ...scanUnicode(file.text),
      ...secrets.map(({ secret: _, ...hit }) => hit),
      ...scanSpecialTokens(file.text),
    ]
    findings.push(...locate(file.path, file.text, hits))
  }
  findings.push(...lintInstructions(project, files))
  findings.push(...lintLateBoundRules(project, files))
  findings.push(...(await lintConventions(project, options.modes)))
  for (const d of project.resolverDiagnostics)
    findings.push({ severity: 'warning', code: d.code, message: d.message })
  const { compiled, failure } = project
  if (compiled !== undefined) {
    findings.push(...lintBudget(compiled, options.maxTokens))
    findings.push(...lintCache(project, compiled))
    findings.push(...lintCompileWarnings(project, compiled))
    findings.push(...(await promptSecrets(project, fileSecrets)))
  } else if (failure !== undefined) {
    const covered = findings.some(
      (f) =>
        f.severity === 'error' &&
        f.file === failure.file &&
        f.line === failure.line &&
        f.column === failure.column,
    )
    if (!covered || failure.file === undefined) {
      findings.push({
        severity: 'error',
        code: failure.code,
        message: failure.file === undefined ? failure.message : failure.detail,
        ...(failure.file === undefined
          ? {}
          : { file: failure.file, line: failure.line, column: failure.column }),
      })
    }
  }
  return sortFindings(findings)
}
