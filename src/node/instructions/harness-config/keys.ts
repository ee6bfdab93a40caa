import type { InstructionMode } from '../discovery-options.js'

/**
 * The value kinds of harness settings: a byte count, a list of bare file
 * names, a list of paths or globs, one of fixed words, or a boolean.
 */
type SettingKind = 'bytes' | 'file-names' | 'paths' | 'enum' | 'boolean'

/** One setting sysprompt models, under the key name the harness itself uses. */
export interface HarnessKey {
  key: string
  kind: SettingKind
  /** The words an `enum` setting accepts. */
  values?: readonly string[]
  /** What it changes, for help and errors. */
  doc: string
}

/** Claude Code's `instructionFiles` values (the agents-md plugin of 2.1.332; default `claude-md-or-agents-md`). */
export const CLAUDE_INSTRUCTION_FILES = [
  'claude-md',
  'claude-md-or-agents-md',
  'claude-md-and-agents-md',
  'managed-only',
] as const

/** The keys each mode reads from its harness's configuration (and `--harness-config` accepts); a mode not listed has none. */
export const HARNESS_KEYS: Readonly<Partial<Record<InstructionMode, readonly HarnessKey[]>>> = {
  codex: [
    {
      key: 'project_doc_max_bytes',
      kind: 'bytes',
      doc: 'byte cap over the project files (0 turns them off)',
    },
    {
      key: 'project_doc_fallback_filenames',
      kind: 'file-names',
      doc: 'names read after AGENTS.override.md and AGENTS.md in each directory',
    },
  ],
  claude: [
    {
      key: 'instructionFiles',
      kind: 'enum',
      values: CLAUDE_INSTRUCTION_FILES,
      doc: 'whether AGENTS.md is read: never, when no CLAUDE.md exists, beside CLAUDE.md, or no project files at all',
    },
    {
      key: 'hasClaudeMdExternalIncludesApproved',
      kind: 'boolean',
      doc: 'whether imports outside the working directory were approved for this project',
    },
  ],
  gemini: [
    { key: 'context.fileName', kind: 'file-names', doc: 'names read besides GEMINI.md' },
    { key: 'context.importFormat', kind: 'enum', values: ['tree', 'flat'], doc: 'how imports are laid out' },
  ],
  opencode: [{ key: 'instructions', kind: 'paths', doc: 'more instruction files: paths and globs' }],
  // pi 1.x: `trust` is what --approve/--no-approve or a saved decision in ~/.pi/agent/trust.json say.
  pi: [
    {
      key: 'trust',
      kind: 'enum',
      values: ['yes', 'no'],
      doc: 'whether pi trusts the project (pi --approve or --no-approve; else ~/.pi/agent/trust.json): only then are its .pi/SYSTEM.md and .pi/APPEND_SYSTEM.md read',
    },
    {
      key: 'defaultProjectTrust',
      kind: 'enum',
      values: ['ask', 'always', 'never'],
      doc: 'trust for a project with no saved decision (ask: untrusted where pi cannot ask)',
    },
  ],
}

/** The keys of one mode (none for a mode without harness settings). */
export function keysOf(mode: InstructionMode): readonly HarnessKey[] {
  return HARNESS_KEYS[mode] ?? []
}

/** A checked setting value. */
export type SettingValue = number | boolean | string | readonly string[]

/** Why a value does not fit its key, in words that never repeat the value (it may be a secret). */
export type ValueProblem = string

const MAX_BYTES = 2 ** 31 - 1

/** Whether `name` is a bare file name (no directory part), as Codex and Gemini want their names. */
function isFileName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 255 &&
    name !== '.' &&
    name !== '..' &&
    !/[/\\\0]/.test(name) &&
    name.trim() === name
  )
}

/**
 * Checks a value read from a configuration file (already parsed: TOML or
 * JSON) against its key: the checked value, or a problem.
 */
export function checkValue(spec: HarnessKey, raw: unknown): SettingValue | { problem: ValueProblem } {
  switch (spec.kind) {
    case 'bytes':
      if (typeof raw === 'bigint' && raw >= 0n && raw <= BigInt(MAX_BYTES)) return Number(raw)
      return typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 && raw <= MAX_BYTES
        ? raw
        : { problem: `expected a whole number of bytes from 0 to ${MAX_BYTES}` }
    case 'file-names': {
      const list = typeof raw === 'string' ? [raw] : raw
      if (!Array.isArray(list) || list.some((n) => typeof n !== 'string'))
        return { problem: 'expected a file name or a list of file names' }
      if (list.length > 64) return { problem: 'expected at most 64 file names' }
      if (!list.every(isFileName))
        return { problem: 'expected bare file names (no `/`, `\\`, `..` or blanks)' }
      return list as string[]
    }
    case 'paths': {
      if (!Array.isArray(raw) || raw.some((p) => typeof p !== 'string'))
        return { problem: 'expected a list of paths or globs' }
      if (raw.length > 256) return { problem: 'expected at most 256 entries' }
      if (raw.some((p: string) => p.length === 0 || p.length > 4096 || p.includes('\0')))
        return { problem: 'expected non-empty paths without NUL bytes' }
      return raw as string[]
    }
    case 'enum':
      return typeof raw === 'string' && spec.values!.includes(raw)
        ? raw
        : { problem: `expected one of ${spec.values!.join(', ')}` }
    case 'boolean':
      return typeof raw === 'boolean' ? raw : { problem: 'expected true or false' }
  }
}

/** A parsed `--harness-config KEY=VALUE`. */
export interface HarnessOverride {
  key: string
  value: SettingValue
}

/** The keys a mode accepts, for an error message. */
export function acceptedKeys(mode: InstructionMode): string {
  const keys = keysOf(mode).map((k) => k.key)
  return keys.length === 0 ? `${mode} mode accepts no keys` : `${mode} mode accepts ${keys.join(', ')}`
}

/**
 * Parses one `--harness-config KEY=VALUE` for `mode`, with the harness's own
 * key names (`project_doc_max_bytes=65536`, `context.fileName=AGENTS.md`).
 * A list is comma-separated or a JSON array of strings; a boolean is `true`
 * or `false`. Returns the override or a one-line error naming the key (and,
 * for an unknown key, the keys the mode accepts).
 */
export function parseHarnessOverride(
  entry: string,
  mode: InstructionMode,
): { ok: true; override: HarnessOverride } | { ok: false; error: string } {
  const eq = entry.indexOf('=')
  if (eq <= 0) return { ok: false, error: `--harness-config expects KEY=VALUE; ${acceptedKeys(mode)}` }
  const key = entry.slice(0, eq)
  const text = entry.slice(eq + 1)
  const spec = keysOf(mode).find((k) => k.key === key)
  if (spec === undefined)
    return { ok: false, error: `--harness-config: unknown key ${JSON.stringify(key)}; ${acceptedKeys(mode)}` }
  const checked = checkValue(spec, flagValue(spec, text))
  if (typeof checked === 'object' && !Array.isArray(checked) && 'problem' in checked)
    return { ok: false, error: `--harness-config ${key}: ${checked.problem}` }
  return { ok: true, override: { key, value: checked as SettingValue } }
}

/** The raw value of a flag, shaped like a parsed file value so `checkValue` decides once. */
function flagValue(spec: HarnessKey, text: string): unknown {
  switch (spec.kind) {
    case 'bytes':
      return /^(0|[1-9][0-9]{0,15})$/.test(text) ? Number(text) : text
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text
    case 'file-names':
    case 'paths': {
      if (text.startsWith('[')) {
        try {
          return JSON.parse(text) as unknown
        } catch {
          return text
        }
      }
      return text.length === 0 ? [] : text.split(',')
    }
    case 'enum':
      return text
  }
}
