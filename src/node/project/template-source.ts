import { lstat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import {
  builtinPresetFragments,
  type Fragment,
  type FragmentError,
  parseFragment,
} from '../../presets/index.js'
import type { Stability } from '../../registry/index.js'
import type { Dialect } from '../../template/index.js'
import type { FragmentTable } from '../index.js'
import type { PresetName } from './options.js'
import '../front-matter-yaml.js'
import { readCliFile } from './read-file.js'

/**
 * The template a prompt is built from, with what is needed to point into
 * its file: `bodyLine` is the file line the body starts on, so a position
 * in the body maps to the file by adding `bodyLine - 1` to its line.
 */
export interface TemplateSource {
  /** The fragment it was read as (id, hashes, front-matter fields). */
  fragment: Fragment
  /** Absolute path, or `presets/…` for a built-in one. */
  file: string
  builtin: boolean
  body: string
  bodyLine: number
  /** The front matter's `dialect`, else `bracket` (how seed 000's users write templates). */
  dialect: Dialect
  order: number
  stability: Stability
  priority?: number
}

/** The section a template becomes. */
export const TEMPLATE_SECTION = 'template'

/** Built-in template ids: the project template (`[project:instructions]`) and the default template (`[if file:AGENTS.md]`). */
export const BUILTIN_TEMPLATE_IDS = {
  project: 'default.project-template',
  default: 'default.template',
} as const

function fromFragment(fragment: Fragment, builtin: boolean): TemplateSource {
  return {
    fragment,
    file: fragment.source,
    builtin,
    body: fragment.body,
    bodyLine: fragment.bodyLine,
    dialect: fragment.dialect ?? 'bracket',
    order: fragment.order ?? 0,
    stability: fragment.stability,
    ...(fragment.priority === undefined ? {} : { priority: fragment.priority }),
  }
}

/** How a template file is read: confined to `root` when the repository names it (`null` for `--template`), capped at `maxBytes`. */
export interface TemplateRead {
  root: string | null
  maxBytes: number
}

/**
 * Reads a template file in fragment format (SPEC §9): optional YAML front
 * matter, then the body, through the command line's one way in (regular
 * file, size cap, binary sniff, confinement for the project's own
 * template). Problems come back as data, each with the file's own line and
 * column; a file that cannot be read is an `unreadable` error at 1:1 saying
 * why (and never what a link points at).
 */
export async function readTemplateFile(
  path: string,
  read: TemplateRead,
): Promise<{ template?: TemplateSource; errors: FragmentError[] }> {
  const result = await readCliFile({ path, root: read.root, maxBytes: read.maxBytes }, 'the file')
  if (!result.ok) {
    const todo =
      result.reason === 'too-large'
        ? ' (raise --max-file-bytes if it is meant to be this big)'
        : result.reason === 'outside-root'
          ? '; replace the link with the file itself'
          : ''
    return {
      errors: [{ file: path, line: 1, column: 1, code: 'unreadable', message: `${result.message}${todo}` }],
    }
  }
  return templateOfText(result.text, path)
}

/**
 * Template text in fragment format as if read from `path` (positions are
 * lines and columns of that file); `dialect` applies when the front matter
 * names none.
 */
export function templateOfText(
  text: string,
  path: string,
  dialect?: Dialect,
): { template?: TemplateSource; errors: FragmentError[] } {
  const parsed = parseFragment(text, { file: path, relPath: basename(path), id: TEMPLATE_SECTION })
  if (parsed.fragment === undefined) return { errors: parsed.errors }
  const template = fromFragment(parsed.fragment, false)
  if (dialect !== undefined && parsed.fragment.dialect === undefined) template.dialect = dialect
  return { template, errors: [] }
}

/**
 * A built-in template, or the fragment that overrides it: a fragment with
 * the same id in the user's or the project's fragment directories replaces
 * the built-in words, as it does for every preset fragment (SPEC §7).
 */
export function builtinTemplate(
  kind: keyof typeof BUILTIN_TEMPLATE_IDS,
  overrides: FragmentTable,
): TemplateSource {
  const id = BUILTIN_TEMPLATE_IDS[kind]
  const override = overrides.byId.get(id)
  if (override !== undefined) return fromFragment(override, false)
  const builtin = builtinPresetFragments().find((f) => f.id === id)
  // The built-in fragments are embedded in the package; a missing one is a broken build.
  if (builtin === undefined)
    throw new Error(`sysprompt: the built-in template ${id} is missing from this build`)
  return fromFragment(builtin, true)
}

/** The template file a project keeps: `.sysprompt/template.md`. */
export function projectTemplatePath(root: string): string {
  return join(root, '.sysprompt', 'template.md')
}

/**
 * The template to build from (SPEC §9): `--template FILE`; template text
 * given by the caller (the server's preview of an edit, read as the
 * project's `.sysprompt/template.md`); the default template for `--preset default`; none for the other presets; else the
 * project's `.sysprompt/template.md` when there is one; else the built-in
 * project template.
 */
export async function chooseTemplate(
  choice: {
    template: string | undefined
    templateText?: { text: string; dialect?: Dialect }
    preset: PresetName | undefined
    maxFileBytes: number
  },
  root: string,
  overrides: FragmentTable,
): Promise<{ template?: TemplateSource; errors: FragmentError[] }> {
  if (choice.template !== undefined)
    return readTemplateFile(choice.template, { root: null, maxBytes: choice.maxFileBytes })
  if (choice.templateText !== undefined) {
    const { text, dialect } = choice.templateText
    return templateOfText(text, projectTemplatePath(root), dialect)
  }
  if (choice.preset === 'default') return { template: builtinTemplate('default', overrides), errors: [] }
  if (choice.preset !== undefined) return { errors: [] }
  const own = projectTemplatePath(root)
  // Anything at that name is the project's template: a link, FIFO or binary there is an error, not a fallback.
  if ((await lstat(own).catch(() => undefined)) !== undefined)
    return readTemplateFile(own, { root, maxBytes: choice.maxFileBytes })
  return { template: builtinTemplate('project', overrides), errors: [] }
}
