import { homedir } from 'node:os'
import { parse, resolve } from 'node:path'
import { countTokens, resolveTokenizer, withCountCache } from '../../compile/tokenizers.js'
import { type FileSystemAdapter, nodeAdapters } from '../adapters.js'
import { isInside } from '../safe-read.js'
import { DEFAULT_MAX_EXPANDED_BYTES, DEFAULT_MAX_EXPANDED_FILES } from './budget.js'
import { DiscoveryContext } from './context.js'
import type { DiscoverInstructionsOptions, InstructionMode } from './discovery-options.js'
import type { InstructionDiagnostic } from './discovery-results.js'
import { findGitRoot } from './git-root.js'
import { type HarnessOverride, parseHarnessOverride } from './harness-config/keys.js'
import { loadHarnessSettings } from './harness-config/load.js'
import { resolveProfile } from './modes/profiles.js'

/*
 * Setting up a discovery run, apart from the context it fills: reading the
 * harness's configuration needs the context, and the context itself needs
 * nothing that reads files, so the two import in one direction only.
 */

async function real(fs: FileSystemAdapter, path: string): Promise<string> {
  const absolute = resolve(path)
  return fs.realpath(absolute).catch(() => absolute)
}

/**
 * The user's home directory: `$HOME` as this thread sees it, else the
 * operating system's answer. `os.homedir()` reads `HOME` from the process's
 * own environment, which a worker thread's `process.env` (a copy) does not
 * change; reading the variable here keeps the two views the same.
 */
function userHome(): string {
  return process.env.HOME || homedir()
}

/** Resolves the options into a context: real paths, the root, the defaults. */
export async function createContext(options: DiscoverInstructionsOptions): Promise<DiscoveryContext> {
  const fs = options.fs ?? nodeAdapters().fs
  const cwd = await real(fs, options.cwd)
  const fsRoot = options.fsRoot === undefined ? parse(cwd).root : await real(fs, options.fsRoot)
  const home = await real(fs, options.home ?? userHome())
  const diagnostics: InstructionDiagnostic[] = []
  const given = options.root === undefined ? null : await real(fs, options.root)
  const boundary = options.rootIsBoundary !== false
  let gitRoot = boundary ? given : null
  let root: string | null = given
  if (given !== null && !isInside(given, cwd)) {
    diagnostics.push({
      code: 'cwd-outside-root',
      severity: 'warning',
      message: `the working directory ${cwd} is not inside the root ${given}; only the working directory is walked. Pass a root that contains it.`,
      path: cwd,
    })
    gitRoot = null
    root = null
  } else if (gitRoot === null) {
    gitRoot = await findGitRoot(cwd, isInside(fsRoot, cwd) ? fsRoot : parse(cwd).root, fs)
  }
  const context = new DiscoveryContext(
    options.mode ?? 'sysprompt',
    cwd,
    root ?? gitRoot ?? cwd,
    gitRoot,
    home,
    options.home !== undefined,
    isInside(fsRoot, cwd) ? fsRoot : parse(cwd).root,
    fs,
    {
      names: options.names,
      globalFiles: options.globalFiles?.map((file) => resolve(cwd, file)),
      maxBytes: options.maxBytes,
      imports: options.imports ?? true,
      maxExpandedFiles: options.maxExpandedFiles ?? DEFAULT_MAX_EXPANDED_FILES,
      maxExpandedBytes: options.maxExpandedBytes ?? DEFAULT_MAX_EXPANDED_BYTES,
      preload: options.preload ?? 'full',
      paths: (options.paths ?? []).map((path) => resolve(cwd, path)),
      allowFiles: options.allowFiles ?? [],
    },
    ...tokenCounter(options),
  )
  context.diagnostics.push(...diagnostics)
  // A root the caller chose and made the boundary is not a git root, whatever the walks call it.
  context.boundary =
    given !== null && boundary && gitRoot === given ? 'root' : gitRoot === null ? 'none' : 'git'
  context.profile = resolveProfile(context.mode, options.harnessVersion)
  const modelledAs = context.profile?.modelledAs
  if (modelledAs !== undefined)
    context.diagnostics.push({
      code: 'version-not-observed',
      severity: 'warning',
      message: `${context.mode}@${context.profile!.version} is newer than the newest ${context.mode} sysprompt has observed (${modelledAs}): it is shown as ${modelledAs} behaves; a release that changed how it loads instructions would differ`,
    })
  context.settings = await loadHarnessSettings(
    context,
    overridesOf(context.mode, options.harnessConfig ?? []),
    options.env ?? {},
    options.harnessConfigFiles ?? true,
  )
  applySettings(context, options)
  return context
}

function overridesOf(mode: InstructionMode, entries: readonly string[]): HarnessOverride[] {
  return entries.map((entry) => {
    const parsed = parseHarnessOverride(entry, mode)
    if (!parsed.ok) throw new TypeError(parsed.error)
    return parsed.override
  })
}

/** Settings that stand for an option the caller did not pass: the option, when given, wins. */
function applySettings(context: DiscoveryContext, options: DiscoverInstructionsOptions): void {
  const key =
    context.mode === 'codex'
      ? 'project_doc_fallback_filenames'
      : context.mode === 'gemini'
        ? 'context.fileName'
        : ''
  const names = context.setting(key)
  // Names the caller passed are the user's own; from settings, only the user's own files and flags choose home names.
  const own = options.names ?? (context.settings.user.get(key)?.value as readonly string[] | undefined)
  if (own !== undefined) context.options.homeNames = own
  if (options.names === undefined && names !== undefined) context.options.names = names.value as string[]
  // Codex's key (no other mode has it).
  const cap = context.setting('project_doc_max_bytes')
  if (options.maxBytes === undefined && cap !== undefined) {
    context.options.maxBytes = cap.value as number
    context.capSource = cap.source
  }
}

function tokenCounter(options: DiscoverInstructionsOptions): [(text: string) => number, string] {
  const tokenizer = withCountCache(resolveTokenizer(options.tokenizer), options.countCache)
  return [(text) => countTokens(tokenizer, text), tokenizer.name]
}
