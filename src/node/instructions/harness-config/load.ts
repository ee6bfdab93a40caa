import { dirname, join, resolve } from 'node:path'
import { readCheckedFile, readConfinedFile, readFailureText } from '../../safe-read.js'
import type { DiscoveryContext } from '../context.js'
import type { InstructionMode } from '../discovery-options.js'
import { dirsDown } from '../git-root.js'
import { checkValue, type HarnessOverride, keysOf, type SettingValue } from './keys.js'
import { at, type Parsed, parseJson, parseToml } from './parse.js'
import type { HarnessSettings, Setting } from './settings.js'

/** Configuration files larger than this are refused (they hold a few settings). */
export const CONFIG_READ_LIMIT = 256 * 1024
/** `~/.claude.json` also keeps per-project history, so it may be larger. */
const CLAUDE_STATE_LIMIT = 16 * 1024 * 1024

export type { HarnessSettings, InstructionsEntry, Setting } from './settings.js'

/** What a configuration file is and how to read it. */
interface ConfigFile {
  path: string
  format: 'toml' | 'json' | 'jsonc'
  /** A file in the project (untrusted: confined to the root); otherwise the user's own. */
  project: boolean
  limit?: number
}

/**
 * Reads the harness configuration of `context.mode` from the home directory
 * and the project (when the files exist), then applies the `--harness-config`
 * overrides. A file that cannot be read or parsed, or a value that does not
 * fit its key, becomes a `harness-config` diagnostic naming the file and the
 * key, never the value; the setting is then left at the harness's default.
 */
export async function loadHarnessSettings(
  context: DiscoveryContext,
  overrides: readonly HarnessOverride[],
  env: Readonly<Record<string, string | undefined>>,
  readFiles: boolean,
): Promise<HarnessSettings> {
  const settings: HarnessSettings = { values: new Map(), user: new Map(), instructions: [] }
  if (context.mode === 'codex') {
    const given = env.CODEX_HOME
    settings.codexHome =
      given === undefined || given.length === 0 ? join(context.home, '.codex') : resolve(context.cwd, given)
  }
  if (readFiles) await READERS[context.mode]?.(context, settings)
  for (const { key, value } of overrides) {
    const source = `--harness-config ${key}`
    if (key === 'instructions') {
      // opencode's key (no other mode has it): a flag replaces what the files listed, as any other override does.
      settings.instructions = (value as string[]).map((pattern) => ({ pattern, source, project: false }))
    }
    settings.values.set(key, { value, source })
    settings.user.set(key, { value, source })
  }
  return settings
}

type Reader = (context: DiscoveryContext, settings: HarnessSettings) => Promise<void>

const READERS: Readonly<Partial<Record<InstructionMode, Reader>>> = {
  async codex(context, settings) {
    const home = settings.codexHome!
    const user = await readConfig(context, {
      path: join(home, 'config.toml'),
      format: 'toml',
      project: false,
    })
    take(context, settings, user, 'codex')
    // Project `.codex/config.toml` layers (root down to cwd) count only for a project the user trusted.
    const base = context.gitRoot ?? context.cwd
    const trust = user === undefined ? undefined : at(user.data, ['projects', base, 'trust_level'])
    for (const dir of dirsDown(base, context.cwd)) {
      const path = join(dir, '.codex', 'config.toml')
      if (!(await exists(context, path))) continue
      if (trust !== 'trusted') {
        context.report(
          'harness-config',
          `${context.display(path)} was not read: Codex reads a project's .codex/config.toml only once the project is trusted (projects."${base}".trust_level = "trusted" in ${context.display(join(home, 'config.toml'))}).`,
          path,
          'info',
        )
        continue
      }
      take(context, settings, await readConfig(context, { path, format: 'toml', project: true }), 'codex')
    }
  },
  async gemini(context, settings) {
    const user = join(context.home, '.gemini', 'settings.json')
    take(
      context,
      settings,
      await readConfig(context, { path: user, format: 'jsonc', project: false }),
      'gemini',
    )
    // The workspace settings live in the working directory (none when that is the home directory).
    const workspace = join(context.cwd, '.gemini', 'settings.json')
    if (workspace !== user)
      take(
        context,
        settings,
        await readConfig(context, { path: workspace, format: 'jsonc', project: true }),
        'gemini',
      )
  },
  async opencode(context, settings) {
    const files: ConfigFile[] = ['config.json', 'opencode.json', 'opencode.jsonc'].map((name) => ({
      path: join(context.home, '.config', 'opencode', name),
      format: 'jsonc',
      project: false,
    }))
    // Project files from the outermost directory in: each of opencode.jsonc and opencode.json found up the walk.
    const top = context.gitRoot ?? context.fsRoot
    for (const name of ['opencode.jsonc', 'opencode.json'])
      for (const dir of dirsDown(top, context.cwd))
        files.push({ path: join(dir, name), format: 'jsonc', project: true })
    for (const file of files) {
      const read = await readConfig(context, file)
      if (read === undefined) continue
      const raw = at(read.data, ['instructions'])
      if (raw === undefined) continue
      const value = checked(context, read, 'instructions', raw, 'opencode')
      if (value === undefined) continue
      const source = `instructions in ${context.display(file.path)}`
      for (const pattern of value as string[])
        if (!settings.instructions.some((e) => e.pattern === pattern))
          settings.instructions.push({ pattern, source, project: file.project })
    }
  },
  async pi(context, settings) {
    const dir = join(context.home, '.pi', 'agent')
    const user = await readConfig(context, {
      path: join(dir, 'settings.json'),
      format: 'json',
      project: false,
    })
    const fallback = user === undefined ? undefined : at(user.data, ['defaultProjectTrust'])
    if (user !== undefined && fallback !== undefined) {
      const value = checked(context, user, 'defaultProjectTrust', fallback, 'pi')
      const source = `defaultProjectTrust in ${context.display(user.file.path)}`
      if (value !== undefined) settings.values.set('defaultProjectTrust', { value, source })
    }
    // pi 1.x's saved decisions: the entry of the nearest directory from cwd up (true, false; null is no decision).
    const store = await readConfig(context, { path: join(dir, 'trust.json'), format: 'json', project: false })
    if (store === undefined || typeof store.data !== 'object' || store.data === null) return
    for (let at = context.cwd; ; at = dirname(at)) {
      const decision = Object.hasOwn(store.data, at) ? (store.data as Record<string, unknown>)[at] : undefined
      if (decision === true || decision === false) {
        const source = `${JSON.stringify(at)}: ${decision} in ${context.display(store.file.path)}`
        settings.values.set('trust', { value: decision ? 'yes' : 'no', source })
        return
      }
      if (dirname(at) === at) return
    }
  },
  async claude(context, settings) {
    // Plugin options are read from the user's settings only: Claude Code 2.1.332 logs that project settings are not read for them.
    const path = join(context.home, '.claude', 'settings.json')
    const read = await readConfig(context, { path, format: 'json', project: false })
    if (read !== undefined) {
      const configs = at(read.data, ['pluginConfigs'])
      const name =
        typeof configs === 'object' && configs !== null
          ? Object.keys(configs).find(
              (k) => k === 'cc-plugin-agents-md' || k === 'agents-md' || k.startsWith('agents-md@'),
            )
          : undefined
      const options = name === undefined ? undefined : at(configs, [name, 'options'])
      const chosen = at(options, ['instructionFiles'])
      const legacy = LEGACY_PROJECT_INSTRUCTIONS[String(at(options, ['projectInstructions']))]
      // The older `projectInstructions` is honoured while `instructionFiles` is unset or at its default.
      const useLegacy = legacy !== undefined && (chosen === undefined || chosen === 'claude-md-or-agents-md')
      const raw = useLegacy ? legacy : chosen
      const key = useLegacy ? 'projectInstructions' : 'instructionFiles'
      if (raw !== undefined) {
        const value = checked(context, read, 'instructionFiles', raw, 'claude', key)
        if (value !== undefined)
          settings.values.set('instructionFiles', {
            value,
            source: `pluginConfigs.${name}.options.${key} in ${context.display(path)}`,
          })
      }
    }
    const state = join(context.home, '.claude.json')
    const project = context.gitRoot ?? context.cwd
    const stateRead = await readConfig(context, {
      path: state,
      format: 'json',
      project: false,
      limit: CLAUDE_STATE_LIMIT,
    })
    if (stateRead === undefined) return
    const raw = at(stateRead.data, ['projects', project, 'hasClaudeMdExternalIncludesApproved'])
    if (raw === undefined) return
    const value = checked(context, stateRead, 'hasClaudeMdExternalIncludesApproved', raw, 'claude')
    if (value !== undefined)
      settings.values.set('hasClaudeMdExternalIncludesApproved', {
        value,
        source: `projects["${project}"].hasClaudeMdExternalIncludesApproved in ${context.display(state)}`,
      })
  },
}

/** Claude Code's older `projectInstructions` words, as it maps them onto `instructionFiles`. */
const LEGACY_PROJECT_INSTRUCTIONS: Readonly<Record<string, string>> = {
  none: 'managed-only',
  claude: 'claude-md',
  'agents-fallback': 'claude-md-or-agents-md',
  both: 'claude-md-and-agents-md',
}

interface ReadConfig {
  file: ConfigFile
  data: unknown
}

async function exists(context: DiscoveryContext, path: string): Promise<boolean> {
  return (await context.fs.stat(path).catch(() => undefined)) !== undefined
}

/** Reads and parses one config file; `undefined` when it is absent or was refused (then reported). */
async function readConfig(context: DiscoveryContext, file: ConfigFile): Promise<ReadConfig | undefined> {
  if (!(await exists(context, file.path))) return undefined
  const limit = file.limit ?? CONFIG_READ_LIMIT
  const checks = { maxBytes: limit, oversize: 'refuse' as const, fs: context.fs }
  const outcome = file.project
    ? await readConfinedFile(file.path, dirname(file.path), { ...checks, roots: [context.root] })
    : await readCheckedFile(file.path, checks)
  const shown = context.display(file.path)
  if (!outcome.ok) {
    if (outcome.reason === 'missing') return undefined
    context.report(
      'harness-config',
      `${shown} ${readFailureText(outcome, limit)}; its settings were ignored.`,
      file.path,
    )
    return undefined
  }
  // The read already dropped a leading byte-order mark (safe-read's decoder).
  const parsed: Parsed =
    file.format === 'toml'
      ? await parseToml(outcome.text)
      : await parseJson(outcome.text, file.format === 'jsonc')
  if (!parsed.ok) {
    const kind = file.format === 'toml' ? 'TOML' : file.format === 'jsonc' ? 'JSON (with comments)' : 'JSON'
    context.report(
      'harness-config',
      `${shown} ${parsed.problem ?? `is not valid ${kind}`} (line ${parsed.line}, column ${parsed.column}); its settings were ignored. Fix the file.`,
      file.path,
      'warning',
      { path: file.path, line: parsed.line, column: parsed.column },
    )
    return undefined
  }
  return { file, data: parsed.data }
}

/** Takes every key of `mode` that a read file sets (later files override earlier ones). */
function take(
  context: DiscoveryContext,
  settings: HarnessSettings,
  read: ReadConfig | undefined,
  mode: InstructionMode,
): void {
  if (read === undefined) return
  for (const spec of keysOf(mode)) {
    const raw = at(read.data, spec.key.split('.'))
    if (raw === undefined) continue
    const value = checked(context, read, spec.key, raw, mode)
    if (value === undefined) continue
    const setting: Setting = { value, source: `${spec.key} in ${context.display(read.file.path)}` }
    if (read.file.project) setting.project = true
    else settings.user.set(spec.key, setting)
    settings.values.set(spec.key, setting)
  }
}

/** The checked value, or `undefined` after a diagnostic that names the file and the key (not the value). */
function checked(
  context: DiscoveryContext,
  read: ReadConfig,
  key: string,
  raw: unknown,
  mode: InstructionMode,
  shownKey = key,
): SettingValue | undefined {
  const spec = keysOf(mode).find((k) => k.key === key)!
  const value = checkValue(spec, raw)
  if (typeof value === 'object' && !Array.isArray(value) && 'problem' in value) {
    context.report(
      'harness-config',
      `${context.display(read.file.path)}: ${shownKey}: ${value.problem}; the setting was ignored.`,
      read.file.path,
    )
    return undefined
  }
  return value as SettingValue
}
