import type { ProjectPrompt } from '../../node/project/project.js'
import type { IncludedFile } from './included-files.js'
import type { Finding } from './types.js'

/**
 * Path rules that a setup puts into the cached prefix (issue 15, late-bound
 * instructions). A rule with `paths:` applies only while the agent works on
 * matching files; harnesses deliver such rules with the tool result of the
 * file that matched, never in the system prompt. Here, a selected rule
 * becomes a `rule:<id>` section of at least `session` stability, so the
 * stable prefix changes whenever the working files do. Each such rule is a
 * warning at its `paths:` line, with the fix: `stability: turn`, which
 * keeps it after the cached prefix.
 */
export function lintLateBoundRules(project: ProjectPrompt, files: readonly IncludedFile[]): Finding[] {
  const out: Finding[] = []
  for (const { rule, decision } of project.judged) {
    if (rule.paths === undefined || !decision.applies || rule.stability === 'turn') continue
    const section = project.compiled?.sections.find((s) => s.name === `rule:${rule.id}`)
    if (section !== undefined && section.stability === 'turn') continue
    out.push({
      severity: 'warning',
      code: 'late-bound-in-prefix',
      message: `rule ${rule.id} applies only to the files its paths: match, yet it sits in the system prompt's cached prefix, which then changes with the working files (harnesses deliver path rules with a tool result). Set \`stability: turn\` in its front matter to keep it after the cached prefix.`,
      file: rule.source,
      line: pathsLine(files.find((f) => f.path === rule.source)?.text),
      column: 1,
    })
  }
  return out
}

/** The 1-based line of the file's `paths:` key, else 1. */
function pathsLine(text: string | undefined): number {
  const index = text?.split('\n').findIndex((line) => /^paths\s*:/.test(line)) ?? -1
  return index === -1 ? 1 : index + 1
}
