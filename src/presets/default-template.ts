import { embeddedFragments } from './words.js'

function body(relPath: string): string {
  const fragment = embeddedFragments()[relPath]
  // Both files are ours; the embedding test keeps them present and well-formed.
  if (fragment === undefined)
    throw new Error(`sysprompt: built-in preset presets/${relPath} is missing or broken`)
  // The blank line a Markdown formatter puts after the front matter is not part of the template.
  return fragment.body.replace(/^\n+/, '')
}

/**
 * The default system-prompt template (SPEC §7, seed 000), in the bracket
 * dialect: a short persona, then the text of the project's AGENTS.md when the
 * file exists (`[if file:AGENTS.md]…[endif]`), then the working directory
 * (`[prompt:cwd]`). The template a workspace starts with; users edit it and
 * it is stored per workspace (SPEC §8). Its words live in
 * `presets/default/template.md`.
 */
export const DEFAULT_TEMPLATE: string = body('default/template.md')

/**
 * The default template with every instruction file discovered for the
 * working directory (`[project:instructions]`, SPEC §6) in place of the
 * single AGENTS.md; what the command line uses. Its words live in
 * `presets/default/project-template.md`.
 */
export const PROJECT_TEMPLATE: string = body('default/project-template.md')
