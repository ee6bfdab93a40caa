import type { CompiledPrompt } from '../compile/index.js'
import { inspectData } from '../node/report/inspect-data.js'
import '../node/front-matter-yaml.js'
import { ProjectError } from '../node/project/errors.js'
import type { ProjectOptions } from '../node/project/options.js'
import { buildProject, type ProjectPrompt } from '../node/project/project.js'
import { projectTemplatePath, templateOfText } from '../node/project/template-source.js'
import { compileTemplate, type Diagnostic, type Dialect } from '../template/index.js'
import { ApiError } from './errors.js'

/**
 * The repository work of a request: what may take long on a large or
 * hostile repository (reading and expanding its files, compiling and
 * counting the prompt), as plain data in and plain data out so that it can
 * run on a worker thread (`work-pool.ts`) and leave the event loop free for
 * other requests. The request's checks (the context confined to the root,
 * the stored template) are done by the caller, on the main thread, before
 * a job is made.
 */
export type Job =
  /** The compiled prompt and the template's diagnostics (preview, sessions, a template about to be saved). */
  | { kind: 'compile'; options: ProjectOptions; env: Env }
  /** The inspect report. */
  | { kind: 'inspect'; options: ProjectOptions; env: Env }
  /** The variables the template can use, with the values they take. */
  | { kind: 'variables'; options: ProjectOptions; env: Env }
  /** The lenient diagnostics of a template text read as the project's template file. */
  | { kind: 'diagnostics'; root: string; text: string; dialect: Dialect }

/** The environment the pipeline reads (user fragment directories), copied as plain strings. */
export type Env = Record<string, string>

/** What each kind of job answers. */
export interface JobResults {
  compile: { compiled: CompiledPrompt; diagnostics: Diagnostic[] }
  inspect: Record<string, unknown>
  variables: { variables: VariableRow[] }
  diagnostics: Diagnostic[]
}

/** One variable as `GET /api/variables` lists it. */
export type VariableRow = ProjectPrompt['catalog']['infos'][number] & { value?: string | null }

/** The job of kind `K`. */
export type JobOf<K extends Job['kind']> = Extract<Job, { kind: K }>

/** The environment as plain strings, for a job (and for the structured clone to a worker). */
export function plainEnv(env: Record<string, string | undefined>): Env {
  const out: Env = {}
  for (const [key, value] of Object.entries(env)) if (typeof value === 'string') out[key] = value
  return out
}

/** Runs `job` on this thread. Problems of the request come back as `ApiError`s. */
export async function runJob<K extends Job['kind']>(job: JobOf<K>): Promise<JobResults[K]> {
  return (await runAny(job)) as JobResults[K]
}

async function runAny(job: Job): Promise<JobResults[Job['kind']]> {
  switch (job.kind) {
    case 'compile': {
      const project = await build(job.options, job.env)
      return { compiled: compiledOf(project), diagnostics: diagnosticsOf(project) }
    }
    case 'inspect': {
      const project = await build(job.options, job.env)
      return (await inspectData(project, compiledOf(project))) as unknown as Record<string, unknown>
    }
    case 'variables': {
      const project = await build(job.options, job.env)
      const values = project.assembly?.variables ?? {}
      const variables = project.catalog.infos.map((info) => ({
        ...info,
        ...(info.pattern !== true && Object.hasOwn(values, info.key)
          ? { value: values[info.key] ?? null }
          : {}),
      }))
      return { variables }
    }
    case 'diagnostics': {
      const { template, errors } = templateOfText(job.text, projectTemplatePath(job.root), job.dialect)
      return diagnosticsOf({ ...(template === undefined ? {} : { template }), templateErrors: errors })
    }
  }
}

/** Builds the prompt with the pipeline `sysprompt show` runs; the pipeline's refusals as API errors. */
async function build(options: ProjectOptions, env: Env): Promise<ProjectPrompt> {
  try {
    return await buildProject(options, env)
  } catch (error) {
    if (error instanceof ProjectError) throw new ApiError(error.usage ? 400 : 422, error.code, error.message)
    throw error
  }
}

/** The compiled prompt of `project`, or a 422 with the diagnostics of why there is none. */
function compiledOf(project: ProjectPrompt): CompiledPrompt {
  if (project.compiled !== undefined) return project.compiled
  const failure = project.failure
  const located: Diagnostic[] =
    failure?.line === undefined
      ? []
      : [
          {
            code: failure.code as Diagnostic['code'],
            message: failure.detail,
            line: failure.line,
            column: failure.column ?? 1,
          },
        ]
  const seen = new Set(located.map((d) => `${d.line}:${d.column}:${d.code}`))
  const rest = diagnosticsOf(project).filter((d) => !seen.has(`${d.line}:${d.column}:${d.code}`))
  throw new ApiError(422, 'template-unusable', failure?.message ?? 'the prompt could not be built', [
    ...located,
    ...rest,
  ])
}

/** Lenient diagnostics of the project's template (not built-in), as lines and columns of its file. */
export function diagnosticsOf(project: Pick<ProjectPrompt, 'template' | 'templateErrors'>): Diagnostic[] {
  const template = project.template
  if (template === undefined || template.builtin) return []
  const front = project.templateErrors.map((e) => ({
    code: e.code as Diagnostic['code'],
    message: e.message,
    line: e.line,
    column: e.column,
  }))
  const body = compileTemplate(template.body, { dialect: template.dialect, strict: false }).diagnostics
  return [
    ...front,
    ...body.map((d) => ({
      code: d.code,
      message: d.message,
      line: d.line + template.bodyLine - 1,
      column: d.column,
    })),
  ]
}
