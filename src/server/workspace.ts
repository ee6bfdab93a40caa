import { realpath } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { z } from '@hono/zod-openapi'
import type { PromptStore } from '../compile/index.js'
import { FileLockError } from '../node/file-lock.js'
import {
  fragmentDirs,
  INSTRUCTION_MODES,
  type InstructionMode,
  isInside,
  loadFragments,
} from '../node/index.js'
import '../node/front-matter-yaml.js'
import type { ProjectOptions } from '../node/project/options.js'
import { builtinTemplate } from '../node/project/template-source.js'
import { AUTONOMY_LEVELS, type Autonomy, parseFragment } from '../presets/index.js'
import { type Diagnostic, type Dialect, isValidKey } from '../template/index.js'
import { ApiError } from './errors.js'
import type { PromptContext } from './schemas.js'
import { contentHash, readTemplateFile, swapTemplateFile } from './template-file.js'
import { type JobOf, type JobResults, plainEnv } from './work.js'
import type { WorkPool } from './work-pool.js'

/** A request's prompt context, validated by the schema. */
export type Context = z.infer<typeof PromptContext>

/** The template the server serves, as seed 000's SystemPromptTemplateResponse carries it. */
export interface ServedTemplate {
  template: string
  dialect: Dialect
  isDefault: boolean
  hash: string
  updatedAt: string | null
}

/** What the server builds prompts in. */
export interface WorkspaceOptions {
  /** The served project root, absolute and real. */
  root: string
  /** The environment the pipeline reads (user fragment directories). */
  env: Record<string, string | undefined>
  /** The environment variables `env:NAME` may read (the server's own choice, never a request's). */
  envAllowlist: string[]
  /** With a name, the template lives in the store under that workspace instead of `.sysprompt/template.md`. */
  workspace?: string
  store: PromptStore
  /** Where the repository work of requests runs (`work-pool.ts`). */
  pool: WorkPool
}

/**
 * The served workspace: turns request contexts into the pipeline's options
 * (confined to the root), has the prompt built with the same `buildProject`
 * the command line runs on the worker pool (`work.ts`), and reads and
 * writes the served template.
 */
export class Workspace {
  constructor(readonly options: WorkspaceOptions) {}

  get root(): string {
    return this.options.root
  }

  /** The pipeline's options for `context`; a 400 for a value outside the root or not allowed. */
  async projectOptions(
    context: Context,
    template?: { text: string; dialect?: Dialect },
  ): Promise<ProjectOptions> {
    const { root } = this.options
    const cwd = await this.confined(context.cwd ?? '.', root, 'context.cwd')
    const paths = (context.paths ?? []).map((p) => {
      const path = resolve(cwd, p)
      if (!isInside(root, path))
        throw new ApiError(400, 'outside-root', `context.paths ${p} is outside the served root`)
      return path
    })
    const mode = context.mode ?? 'sysprompt'
    if (!(INSTRUCTION_MODES as readonly string[]).includes(mode)) {
      throw new ApiError(
        400,
        'invalid-request',
        `context.mode ${mode} is not one of ${INSTRUCTION_MODES.join(', ')}`,
      )
    }
    const autonomy = context.autonomy ?? 'suggest'
    if (!(AUTONOMY_LEVELS as readonly string[]).includes(autonomy)) {
      throw new ApiError(
        400,
        'invalid-request',
        `context.autonomy ${autonomy} is not one of ${AUTONOMY_LEVELS.join(', ')}`,
      )
    }
    const set = new Map<string, string>()
    for (const [key, value] of Object.entries(context.set ?? {})) {
      if (!isValidKey(key))
        throw new ApiError(400, 'invalid-request', `context.set ${key} is not a variable key`)
      set.set(key, value)
    }
    const text = template ?? (await this.storedTemplateText())
    return {
      cwd,
      root,
      mode: mode as InstructionMode,
      paths,
      model: context.model,
      preset: context.preset,
      template: undefined,
      ...(text === undefined ? {} : { templateText: text }),
      tokenizer: context.tokenizer ?? 'o200k',
      provider: context.provider ?? 'anthropic',
      providerGiven: context.provider !== undefined,
      autonomy: autonomy as Autonomy,
      set,
      env: this.options.envAllowlist,
      tools: undefined,
    }
  }

  /**
   * Runs the repository work of a request (`work.ts`) for `context` on the
   * worker pool: the prompt built by the pipeline `sysprompt show` runs, and
   * what the route needs of it. The context is checked here first.
   */
  async work<K extends 'compile' | 'inspect' | 'variables'>(
    kind: K,
    context: Context,
    template?: { text: string; dialect?: Dialect },
  ): Promise<JobResults[K]> {
    const options = await this.projectOptions(context, template)
    return this.options.pool.run<K>({ kind, options, env: plainEnv(this.options.env) } as JobOf<K>)
  }

  /** The text saved for a template: the file's (front matter naming its dialect), or as given in workspace mode. */
  savedText(text: string, dialect: Dialect): string {
    return this.options.workspace === undefined ? fileText(text, dialect) : text
  }

  /** The diagnostics of `text` read as the served template file (on the worker pool). */
  diagnostics(text: string, dialect: Dialect): Promise<Diagnostic[]> {
    return this.options.pool.run({ kind: 'diagnostics', root: this.root, text, dialect })
  }

  /** The template served: the store's in workspace mode, else `.sysprompt/template.md` or the built-in default. */
  async template(): Promise<ServedTemplate> {
    const { workspace, store } = this.options
    if (workspace !== undefined) {
      const stored = await store.getTemplate(workspace)
      if (stored !== undefined) {
        return {
          template: stored.template,
          dialect: stored.dialect,
          isDefault: false,
          hash: stored.hash,
          updatedAt: stored.updatedAt,
        }
      }
    } else {
      const file = await readTemplateFile(this.root)
      if (file.exists) {
        return {
          template: file.text,
          dialect: dialectOf(file.text),
          isDefault: false,
          hash: file.hash,
          updatedAt: file.updatedAt,
        }
      }
    }
    return this.defaultTemplate()
  }

  /** The built-in project template (with the user's fragment overrides), served when none is saved. */
  private async defaultTemplate(): Promise<ServedTemplate> {
    const { root, env } = this.options
    const overrides = await loadFragments(fragmentDirs({ projectRoot: root, builtinDir: null, env }))
    const builtin = builtinTemplate('project', overrides)
    return {
      template: builtin.body,
      dialect: builtin.dialect,
      isDefault: true,
      hash: contentHash(builtin.body),
      updatedAt: null,
    }
  }

  /**
   * Saves the template, compare-and-set on the current hash (the default's
   * when none is saved): a stale `expectedHash` is a 409 carrying the
   * current hash. The caller has checked that the template can be used.
   *
   * In workspace mode the store compares and sets. Otherwise the file is
   * swapped under its lock (`swapTemplateFile`): of several writers with the
   * same `expectedHash`, in this server or in others on the same project,
   * exactly one wins and the others get the 409 with the winner's hash.
   */
  async saveTemplate(
    text: string,
    dialect: Dialect,
    expectedHash: string | null | undefined,
  ): Promise<ServedTemplate> {
    const { workspace, store } = this.options
    if (workspace !== undefined) {
      const current = await this.template()
      expectHash(expectedHash, current.hash)
      const stored = await store.setTemplate(
        workspace,
        { template: text, dialect },
        current.isDefault ? null : current.hash,
      )
      return {
        template: stored.template,
        dialect: stored.dialect,
        isDefault: false,
        hash: stored.hash,
        updatedAt: stored.updatedAt,
      }
    }
    const saved = await swapTemplateFile(this.root, fileText(text, dialect), async (file) => {
      expectHash(expectedHash, file.exists ? file.hash : (await this.defaultTemplate()).hash)
    }).catch((error: unknown) => {
      if (!(error instanceof FileLockError)) throw error
      throw error.code === 'busy'
        ? new ApiError(
            503,
            'template-locked',
            `.sysprompt/template.md.lock is held by process ${error.holder?.pid} on ${error.holder?.host} since ${error.holder?.at}; retry, or remove the lock file if no sysprompt is writing the template`,
          )
        : new ApiError(
            500,
            'template-unwritable',
            '.sysprompt/template.md.lock is not a regular file; remove it so that the template can be saved',
          )
    })
    if (!saved.exists) throw new Error('the template file was written but is absent')
    return {
      template: saved.text,
      dialect: dialectOf(saved.text),
      isDefault: false,
      hash: saved.hash,
      updatedAt: saved.updatedAt,
    }
  }

  /** The text a workspace-mode template is built from; `undefined` serves `.sysprompt/template.md` as `show` does. */
  private async storedTemplateText(): Promise<{ text: string; dialect: Dialect } | undefined> {
    const { workspace, store } = this.options
    if (workspace === undefined) return undefined
    const stored = await store.getTemplate(workspace)
    return stored === undefined ? undefined : { text: stored.template, dialect: stored.dialect }
  }

  private async confined(value: string, root: string, what: string): Promise<string> {
    const lexical = resolve(root, value)
    if (!isInside(root, lexical))
      throw new ApiError(400, 'outside-root', `${what} ${value} is outside the served root`)
    const real = await realpath(lexical).catch(() => undefined)
    if (real === undefined)
      throw new ApiError(400, 'invalid-request', `${what} ${value} does not exist in the served root`)
    if (!isInside(root, real))
      throw new ApiError(400, 'outside-root', `${what} ${value} is outside the served root`)
    return real
  }
}

/** A 409 with the current hash when `expected` is given and is not `current`. */
function expectHash(expected: string | null | undefined, current: string): void {
  if (expected !== undefined && expected !== null && expected !== current) {
    throw new ApiError(
      409,
      'stale-hash',
      'the template changed since it was read; reload it and apply the edit again',
      { currentHash: current },
    )
  }
}

const HAS_FRONT_MATTER = /^---\r?\n/

/** The dialect a template file's front matter names, if it names one. */
function declaredDialect(text: string): Dialect | undefined {
  return parseFragment(text, { file: 'template.md', id: 'template' }).fragment?.dialect
}

/** The dialect a template file is written in: its front matter's `dialect`, else `bracket`. */
export function dialectOf(text: string): Dialect {
  return declaredDialect(text) ?? 'bracket'
}

/**
 * The file text for `text` saved as `dialect`. The file's front matter
 * says its dialect (as `show` reads it), so a `mustache` template without
 * front matter gets `---\ndialect: mustache\n---\n` in front; front matter
 * that names another dialect, or none while `mustache` is asked, is a 422.
 */
export function fileText(text: string, dialect: Dialect): string {
  const declared = declaredDialect(text)
  if (declared === dialect || (declared === undefined && dialect === 'bracket')) return text
  if (declared !== undefined || HAS_FRONT_MATTER.test(text)) {
    throw new ApiError(
      422,
      'dialect-mismatch',
      `the front matter must say \`dialect: ${dialect}\`; write it there`,
    )
  }
  return `---\ndialect: ${dialect}\n---\n${text}`
}
