import { realpath, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { type Command, Option } from 'commander'
import type { CacheProvider, TokenizerName } from '../compile/index.js'
import { DEFAULT_MAX_EXPANDED_BYTES, DEFAULT_MAX_EXPANDED_FILES } from '../node/instructions/budget.js'
import { INSTRUCTION_MODES, type InstructionMode } from '../node/instructions/discovery-options.js'
import { HARNESS_KEYS, parseHarnessOverride } from '../node/instructions/harness-config/keys.js'
import { parseModeSpec, resolveProfile } from '../node/instructions/modes/profiles.js'
import { PRESETS, type PresetName, type ProjectOptions } from '../node/project/options.js'
import { DEFAULT_MAX_FILE_BYTES } from '../node/project/read-file.js'
import { AUTONOMY_LEVELS, type Autonomy } from '../presets/autonomy.js'
import { isValidKey } from '../template/keys.js'
import { countCacheFor } from './count-cache.js'
import { UsageError } from './errors.js'

export { PRESETS, type PresetName } from '../node/project/options.js'

/** The values of `--tokenizer`. */
export const TOKENIZERS: readonly TokenizerName[] = ['o200k', 'cl100k', 'estimate']
/** The values of `--provider`. */
export const PROVIDERS: readonly CacheProvider[] = ['anthropic', 'openai', 'gemini']

/** What every command reads from the command line, checked. */
export interface CommonOptions {
  json: boolean
  color: boolean | undefined
  /** The agent's working directory: absolute, real, an existing directory. */
  cwd: string
  /** `--root`, absolute and real, when given. */
  root: string | undefined
  mode: InstructionMode
  /** Working paths (absolute, resolved against `cwd`) that select rules. */
  paths: string[]
  model: string | undefined
  /** The version after `--mode X@`, checked against the mode's profiles. */
  harnessVersion?: string
  /** `--harness-config KEY=VALUE` entries, checked against the mode's keys. */
  harnessConfig?: string[]
}

/**
 * What the commands that build the prompt read on top of {@link CommonOptions}:
 * the pipeline's {@link ProjectOptions} (`--preset`, `--template`, `--tokenizer`,
 * `--provider`, `--autonomy`, `--set`, `--env`, `--tools`) and what only the
 * command line needs.
 */
export interface PromptOptions extends CommonOptions, ProjectOptions {
  /** Whether `--tokenizer` was given (check falls back to the lock's tokenizer otherwise). */
  tokenizerGiven: boolean
  /** False with `--no-cache`: no token-count cache is read or written. */
  cache: boolean
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value]

/** Adds `--json`, `--cwd`, `--root`, `--mode`, `--path`, `--model` and `--no-color`. */
export function addCommonOptions(command: Command): Command {
  return command
    .option('--json', 'print JSON instead of text')
    .option('--cwd <dir>', "the agent's working directory (default: the current directory)")
    .option(
      '--root <dir>',
      'the project root (default: the nearest ancestor of --cwd, or --cwd itself, holding .sysprompt/ or .git)',
    )
    .addOption(
      new Option(
        '--mode <mode>',
        `instruction-file discovery as this harness does it: ${INSTRUCTION_MODES.join(', ')}; a harness version after @ picks its profile (claude@2.1.200; default: the newest observed)`,
      ).default('sysprompt'),
    )
    .option(
      '--path <path>',
      'a path the agent works on, relative to --cwd (repeatable); selects rules with `paths:`',
      collect,
    )
    .option('--model <id>', 'the model id (prompt:model, per-model tuning, cache minimums)')
    .option(
      '--harness-config <key=value>',
      'a setting of the --mode harness under its own key name, over its config files, e.g. project_doc_max_bytes=65536 (repeatable)',
      collect,
    )
    .option('--no-color', 'no colours even on a terminal (NO_COLOR does the same)')
}

/** Adds the options that shape the prompt: preset or template, tokenizer, provider, values. */
export function addPromptOptions(command: Command): Command {
  return addCommonOptions(command)
    .addOption(
      new Option(
        '--preset <name>',
        'build the prompt with a built-in preset instead of the project template',
      ).choices(PRESETS),
    )
    .option(
      '--template <file>',
      'a template file (fragment format: optional front matter, bracket dialect by default)',
    )
    .addOption(
      new Option(
        '--tokenizer <name>',
        "how tokens are counted (default: o200k; check and diff --lock: the lock's)",
      ).choices(TOKENIZERS),
    )
    .addOption(
      new Option(
        '--provider <name>',
        'the provider whose prompt cache to plan for (default: anthropic)',
      ).choices(PROVIDERS),
    )
    .addOption(
      new Option('--autonomy <level>', 'autonomy level for --preset session')
        .choices(AUTONOMY_LEVELS)
        .default('suggest'),
    )
    .option('--set <key=value>', 'pin a variable, e.g. --set prompt:cwd=/workspace (repeatable)', collect)
    .option('--env <NAME>', 'allow env:NAME to read this environment variable (repeatable)', collect)
    .option('--tools <file>', 'a JSON file holding the tool schemas [{ name, description, parameters }]')
    .option(
      '--max-file-bytes <n>',
      `refuse template, lock and tools files larger than this (default: ${DEFAULT_MAX_FILE_BYTES}, 1 MiB)`,
    )
    .option(
      '--max-expanded-files <n>',
      `at most this many files brought in by instruction discovery (per mode: files, imports, rules) and by file: values (per render) (default: ${DEFAULT_MAX_EXPANDED_FILES}); past it the rest is withheld with a mark`,
    )
    .option(
      '--max-expanded-bytes <n>',
      `at most this many bytes of expanded text in the same budget (default: ${DEFAULT_MAX_EXPANDED_BYTES}, 4 MiB)`,
    )
    .option(
      '--allow-file <glob>',
      "let file:, instruction files and imports read a path on the deny-list (.git/, .env*, keys, agent credentials…; by its name or a link's target), relative to the root (repeatable)",
      collect,
    )
    .option(
      '--no-cache',
      "neither read nor write the token-count cache in the user's cache directory (SYSPROMPT_CACHE=off does the same)",
    )
    .option(
      '--base-tokens <n>',
      'tokens the harness itself sends before this prompt (its base prompt and tools), counted towards cache minimums',
    )
}

/** Raw values as commander gives them. */
export type RawOptions = Record<string, unknown>

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [])

/** An existing directory named by an option, absolute; a usage error otherwise. */
export async function existingDir(base: string, value: string, option: string): Promise<string> {
  const path = resolve(base, value)
  const found = await stat(path).catch(() => undefined)
  if (found === undefined)
    throw new UsageError(`${option} ${value}: no such directory`, `pass an existing directory`)
  if (!found.isDirectory()) throw new UsageError(`${option} ${value}: not a directory`, `pass a directory`)
  return realpath(path)
}

/** An existing regular file named on the command line, absolute; a usage error otherwise. */
export async function existingFile(base: string, value: string, what: string): Promise<string> {
  const path = resolve(base, value)
  const found = await stat(path).catch(() => undefined)
  if (found === undefined) throw new UsageError(`${what} ${value}: no such file`, 'check the path')
  if (!found.isFile()) throw new UsageError(`${what} ${value}: not a regular file`, 'pass a file')
  return path
}

/** Checks and resolves the common options against the shell's working directory. */
export async function readCommonOptions(raw: RawOptions, shellCwd: string): Promise<CommonOptions> {
  const cwd = await existingDir(shellCwd, str(raw.cwd) ?? shellCwd, '--cwd')
  const rootValue = str(raw.root)
  const root = rootValue === undefined ? undefined : await existingDir(shellCwd, rootValue, '--root')
  const spec = parseModeSpec(str(raw.mode) ?? 'sysprompt')
  if (!(INSTRUCTION_MODES as readonly string[]).includes(spec.mode))
    throw new UsageError(
      `--mode ${str(raw.mode)}: not a mode`,
      `pass one of ${INSTRUCTION_MODES.join(', ')}, optionally with a version (claude@2.1.200)`,
    )
  const mode = spec.mode as InstructionMode
  try {
    resolveProfile(mode, spec.version)
  } catch (error) {
    throw new UsageError(`--mode ${(error as Error).message}`, 'pass a version of a known profile, or none')
  }
  const harnessConfig = list(raw.harnessConfig)
  for (const entry of harnessConfig) {
    const parsed = parseHarnessOverride(entry, mode)
    if (!parsed.ok)
      throw new UsageError(
        parsed.error,
        Object.keys(HARNESS_KEYS).includes(mode)
          ? "use the harness's own key name"
          : `--harness-config applies only with --mode ${Object.keys(HARNESS_KEYS).join(', ')}, e.g. --mode codex --harness-config project_doc_max_bytes=65536`,
      )
  }
  return {
    json: raw.json === true,
    color: raw.color === false ? false : undefined,
    cwd,
    root,
    mode,
    ...(spec.version === undefined ? {} : { harnessVersion: spec.version }),
    paths: list(raw.path).map((p) => resolve(cwd, p)),
    model: str(raw.model),
    harnessConfig,
  }
}

/**
 * Checks and resolves the prompt options; `processEnv` decides, with `--no-cache`,
 * whether counts come from the user's count cache.
 */
export async function readPromptOptions(
  raw: RawOptions,
  shellCwd: string,
  processEnv: Record<string, string | undefined>,
): Promise<PromptOptions> {
  const common = await readCommonOptions(raw, shellCwd)
  const preset = str(raw.preset) as PresetName | undefined
  const templateValue = str(raw.template)
  if (preset !== undefined && templateValue !== undefined) {
    throw new UsageError('--preset and --template both choose the template', 'pass only one of them')
  }
  const template =
    templateValue === undefined ? undefined : await existingFile(shellCwd, templateValue, '--template')
  const toolsValue = str(raw.tools)
  const tools = toolsValue === undefined ? undefined : await existingFile(shellCwd, toolsValue, '--tools')
  const set = new Map<string, string>()
  for (const entry of list(raw.set)) {
    const eq = entry.indexOf('=')
    const key = eq === -1 ? entry : entry.slice(0, eq)
    if (eq === -1 || !isValidKey(key)) {
      throw new UsageError(
        `--set ${entry}: expected key=value with a variable key`,
        'write it like --set prompt:cwd=/workspace',
      )
    }
    set.set(key, entry.slice(eq + 1))
  }
  const env = list(raw.env)
  for (const name of env) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new UsageError(`--env ${name}: not an environment variable name`, 'pass a name like --env CI')
    }
  }
  const baseValue = str(raw.baseTokens)
  if (baseValue !== undefined && !/^\d{1,9}$/.test(baseValue)) {
    throw new UsageError(
      `--base-tokens ${baseValue}: expected a whole number of tokens`,
      'pass a count like --base-tokens 12000',
    )
  }
  const maxValue = str(raw.maxFileBytes)
  const maxFileBytes = maxValue === undefined ? DEFAULT_MAX_FILE_BYTES : Number(maxValue)
  if (!/^[1-9][0-9]*$/.test(maxValue ?? '1') || !Number.isSafeInteger(maxFileBytes)) {
    throw new UsageError(
      `--max-file-bytes ${maxValue}: not a positive whole number`,
      'pass bytes, e.g. 2097152',
    )
  }
  const maxExpandedFiles = positiveOption(raw.maxExpandedFiles, '--max-expanded-files', 'files, e.g. 400')
  const maxExpandedBytes = positiveOption(raw.maxExpandedBytes, '--max-expanded-bytes', 'bytes, e.g. 8388608')
  const tokenizer = str(raw.tokenizer) as TokenizerName | undefined
  const provider = str(raw.provider) as CacheProvider | undefined
  const cache = raw.cache !== false
  const countCache = await countCacheFor(
    cache,
    processEnv,
    common.root === undefined ? [common.cwd] : [common.cwd, common.root],
  )
  return {
    ...common,
    preset,
    template,
    tokenizer: tokenizer ?? 'o200k',
    tokenizerGiven: tokenizer !== undefined,
    provider: provider ?? 'anthropic',
    providerGiven: provider !== undefined,
    autonomy: (str(raw.autonomy) ?? 'suggest') as Autonomy,
    set,
    env,
    tools,
    ...(baseValue === undefined ? {} : { baseTokens: Number(baseValue) }),
    cache,
    ...(countCache === undefined ? {} : { countCache }),
    maxFileBytes,
    allowFiles: list(raw.allowFile),
    ...(maxExpandedFiles === undefined ? {} : { maxExpandedFiles }),
    ...(maxExpandedBytes === undefined ? {} : { maxExpandedBytes }),
  }
}

/** A positive whole number given to `option`, `undefined` when not given; a usage error otherwise. */
function positiveOption(value: unknown, option: string, example: string): number | undefined {
  const text = str(value)
  if (text === undefined) return undefined
  const n = Number(text)
  if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(n))
    throw new UsageError(`${option} ${text}: not a positive whole number`, `pass ${example}`)
  return n
}
