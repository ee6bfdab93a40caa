import { dirname, resolve } from 'node:path'
import { findImportLines } from '../../node/index.js'
import type { ProjectPrompt } from '../../node/project/project.js'
import type { FragmentError } from '../../presets/index.js'
import { LineCounter } from '../../shared/line-counter.js'
import type { IncludedFile } from './included-files.js'
import type { Finding } from './types.js'

/** Where a file imports `target` (an absolute path): the `@` line of the first importer found. */
function importSite(
  target: string,
  files: readonly IncludedFile[],
): Omit<Finding, 'severity' | 'code' | 'message'> | undefined {
  for (const file of files) {
    if (file.role !== 'instructions') continue
    const line = findImportLines(file.text).find((l) => resolve(dirname(file.path), l.target) === target)
    if (line !== undefined) return { file: file.path, ...new LineCounter(file.text).at(line.start) }
  }
  return undefined
}

/**
 * What discovery found wrong with the instruction files (SPEC §6): cuts,
 * import cycles, missing or escaping imports, unreadable files. Each is a
 * warning (the prompt still builds); an import problem points at the `@`
 * reference that asked for it (line and column in the importing file), a
 * cut at the line where the model stops reading, others at the file.
 */
export function lintInstructions(project: ProjectPrompt, files: readonly IncludedFile[]): Finding[] {
  return project.discovery.diagnostics.map((d): Finding => {
    const base = { severity: 'warning' as const, code: d.code, message: d.message }
    if (d.site !== undefined) return { ...base, file: d.site.path, line: d.site.line, column: d.site.column }
    if (d.path === undefined) return base
    const site = d.code.startsWith('import-') ? importSite(d.path, files) : undefined
    return { ...base, ...(site ?? { file: d.path, line: 1, column: 1 }) }
  })
}

/**
 * Fragment files that do not load (the template's front matter, rules,
 * preset overrides): errors with the file's line and column. The same file
 * can be loaded by two layers (`.sysprompt/` and `.sysprompt/rules/`); each
 * problem is reported once.
 */
export function lintFragmentErrors(project: ProjectPrompt): Finding[] {
  const seen = new Set<string>()
  const all: FragmentError[] = [
    ...project.templateErrors,
    ...project.rules.errors,
    ...project.overrides.errors,
  ]
  const out: Finding[] = []
  for (const e of all) {
    const key = `${e.file}:${e.line}:${e.column}:${e.code}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({
      severity: 'error',
      code: e.code,
      message: e.message,
      file: e.file,
      line: e.line,
      column: e.column,
    })
  }
  return out
}
