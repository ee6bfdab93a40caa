import { homedir } from 'node:os'
import type { LockMachine, LockView, PromptLock } from '../compile/index.js'
import { hashText, SYSPROMPT_ENTRY } from '../compile/index.js'
import type { InstructionMode } from '../node/instructions/index.js'
import { INSTRUCTION_MODES } from '../node/instructions/index.js'
import { parseModeSpec, resolveProfile } from '../node/instructions/modes/profiles.js'
import { shown } from '../node/project/paths.js'
import { buildProject, type ProjectPrompt } from '../node/project/project.js'
import { CliError } from './errors.js'
import { lockOptions } from './lock-machine.js'
import type { PromptOptions } from './options.js'

// The entries of `sysprompt.lock` (format version 2, docs/lock-format.md):
// one per mode, keyed `sysprompt`, `<mode>` (a mode without version
// profiles) or `<mode>@<version>` (the profile the entry was built with).

/** The key of the entry for `mode` at `version` (default: the newest observed): `sysprompt`, `copilot`, `claude@2.1.332`. */
export function entryKey(mode: InstructionMode, version?: string): string {
  if (mode === 'sysprompt') return SYSPROMPT_ENTRY
  const profile = resolveProfile(mode, version)
  return profile === null ? mode : `${mode}@${profile.version}`
}

/** The mode and version an entry key names; a key this sysprompt cannot build is a `CliError` saying what to do. */
export function entryMode(key: string): { mode: InstructionMode; version?: string } {
  const spec = parseModeSpec(key)
  if (!(INSTRUCTION_MODES as readonly string[]).includes(spec.mode))
    throw new CliError(
      'lock-unknown-mode',
      `sysprompt.lock has an entry "${key}", and ${spec.mode} is not a mode this sysprompt knows`,
      'upgrade sysprompt, or remove the entry from the lock',
    )
  const mode = spec.mode as InstructionMode
  try {
    resolveProfile(mode, spec.version)
  } catch (error) {
    throw new CliError(
      'lock-unknown-version',
      `sysprompt.lock has an entry "${key}": ${(error as Error).message}`,
      `upgrade sysprompt, or replace the entry with \`sysprompt check --update --mode ${mode}\``,
    )
  }
  return spec.version === undefined ? { mode } : { mode, version: spec.version }
}

/**
 * The entries a command compares: with `--mode` (`raw`), the entry of that
 * mode at that version, or, without a version, every entry of that mode in
 * the lock; without `--mode`, every entry. None is a `CliError` naming the
 * `--update` that writes it (never a false "ok").
 */
export function entriesAsked(_lock: PromptLock, raw: string | undefined, keys: string[]): string[] {
  if (raw === undefined) return keys
  const spec = parseModeSpec(raw)
  const asked =
    spec.version !== undefined
      ? keys.filter((k) => k === raw)
      : keys.filter((k) => k === spec.mode || k.startsWith(`${spec.mode}@`))
  if (asked.length > 0) return asked
  const has = keys.length === 0 ? 'it has none' : `it has ${keys.join(', ')}`
  throw new CliError(
    'lock-no-entry',
    `sysprompt.lock has no entry for ${raw} (${has}), so what ${raw} loads was never locked`,
    `run \`sysprompt check --update --mode ${raw}\` to add it`,
  )
}

/** `text` with the project root and the home directory written as placeholders, where they start a path. */
function portable(text: string, root: string, home: string): string {
  let out = text
  for (const [path, mark] of [
    [root, '<root>'],
    [home, '<home>'],
  ] as const) {
    if (path.length < 2) continue
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    out = out.replace(new RegExp(`${escaped}(?![\\p{L}\\p{N}_.-])`, 'gu'), mark)
  }
  return out
}

/**
 * What the mode's harness sends, as an entry records it: the hash of its
 * parts (placement, role, text; the root and home written `<root>` and
 * `<home>`, so it holds on any checkout), its tokens and the files it sends.
 */
export function lockView(project: ProjectPrompt, home: string): LockView {
  const parts = project.discovery.harness.parts
  const root = project.root
  const files: string[] = []
  for (const p of parts) {
    for (const f of p.files) {
      const name = shown(f, root)
      if (!files.includes(name)) files.push(name)
    }
  }
  return {
    hash: hashText(JSON.stringify(parts.map((p) => [p.placement, p.role, portable(p.text, root, home)]))),
    tokens: parts.reduce((sum, p) => sum + p.tokens, 0),
    files: files.map((f) => (f.startsWith('/') ? portable(f, root, home) : f)),
  }
}

/** The user's home directory as discovery sees it. */
export function homeOf(env: Record<string, string | undefined>): string {
  return env.HOME || homedir()
}

/**
 * Builds the prompt of the entry `key`: its mode and version, the machine
 * values pinned, in the directory `lockCwd` the entry records (checking) or
 * this run's (writing, `lockCwd` undefined).
 */
export async function buildEntry(
  options: PromptOptions,
  env: Record<string, string | undefined>,
  root: string,
  key: string,
  lockCwd: string | undefined,
): Promise<{ project: ProjectPrompt; machine: LockMachine; view: LockView; note?: string }> {
  const { mode, version } = entryMode(key)
  const asked: PromptOptions = { ...options, mode }
  if (version === undefined) delete asked.harnessVersion
  else asked.harnessVersion = version
  // --harness-config is checked against --mode; it applies to that mode's entries only.
  if (mode !== options.mode) delete asked.harnessConfig
  const pinned = await lockOptions(asked, root, lockCwd)
  const project = await buildProject(pinned.options, env)
  return {
    project,
    machine: pinned.machine,
    view: lockView(project, homeOf(env)),
    ...(pinned.note === undefined ? {} : { note: pinned.note }),
  }
}
