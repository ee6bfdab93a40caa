import type { TokenCountCache, TokenizerName } from '../../compile/index.js'
import type { FileSystemAdapter } from '../adapters.js'
import { discoverInstructions } from '../index.js'
import type { InstructionMode } from '../instructions/discovery-options.js'
import type { InstructionDiscovery } from '../instructions/discovery-results.js'

/**
 * What several harnesses load in one repository (issue 16): the discovery
 * of each mode asked for, with the same working paths, and the texts each
 * one sends for a working path after its own cut. `matrix`, `check --same`
 * and the cross-convention lint read these.
 */

/** One harness's discovery. */
export interface HarnessLoad {
  mode: InstructionMode
  discovery: InstructionDiscovery
}

/** One file's text as a harness sends it: at start (after the harness's cut) or late-bound for a path. */
export interface LoadedText {
  path: string
  text: string
  when: 'start' | 'path'
}

/** Options of {@link discoverAll}. */
export interface DiscoverAllOptions {
  cwd: string
  root: string
  /** Whether `root` is where the harnesses' walks stop (the user chose it with --root); see `DiscoverInstructionsOptions`. */
  rootIsBoundary?: boolean
  modes: readonly InstructionMode[]
  /** Working paths, absolute. */
  paths: readonly string[]
  tokenizer: TokenizerName
  countCache?: TokenCountCache
  home?: string
  /** Globs taken back off the deny-list (`--allow-file`), as in one mode's discovery. */
  allowFiles?: readonly string[]
  /** File access shared by every mode's discovery (a `memoFs` lists and reads the tree once); default the real file system. */
  fs?: FileSystemAdapter
  /** The expansion budget per mode (`--max-expanded-files`, `--max-expanded-bytes`); each mode gets its own. */
  maxExpandedFiles?: number
  maxExpandedBytes?: number
}

/** Runs each mode's discovery, one after another (each walks the same tree; in turn keeps the file handles few). */
export async function discoverAll(options: DiscoverAllOptions): Promise<HarnessLoad[]> {
  const out: HarnessLoad[] = []
  for (const mode of options.modes) {
    const discovery = await discoverInstructions({
      cwd: options.cwd,
      root: options.root,
      ...(options.rootIsBoundary === undefined ? {} : { rootIsBoundary: options.rootIsBoundary }),
      mode,
      paths: options.paths,
      tokenizer: options.tokenizer,
      ...(options.countCache === undefined ? {} : { countCache: options.countCache }),
      ...(options.home === undefined ? {} : { home: options.home }),
      ...(options.fs === undefined ? {} : { fs: options.fs }),
      ...(options.allowFiles === undefined ? {} : { allowFiles: options.allowFiles }),
      ...(options.maxExpandedFiles === undefined ? {} : { maxExpandedFiles: options.maxExpandedFiles }),
      ...(options.maxExpandedBytes === undefined ? {} : { maxExpandedBytes: options.maxExpandedBytes }),
    })
    out.push({ mode, discovery })
  }
  return out
}

/**
 * The texts a harness sends: each file loaded at start as the model reads
 * it (after the harness's cut; a file cut away entirely is absent), then,
 * for `path`, the files late-bound for it.
 */
export function textsFor(load: HarnessLoad, path: string | undefined): LoadedText[] {
  const { discovery } = load
  const start: LoadedText[] = discovery.spans.map((span) => ({
    path: span.path,
    text: discovery.text.slice(span.start, span.end),
    when: 'start',
  }))
  if (path === undefined) return start
  const late: LoadedText[] = discovery.lateBound
    .filter((file) => file.loadedFor.includes(path))
    .map((file) => ({ path: file.path, text: file.text, when: 'path' }))
  return [...start, ...late]
}

/** How two texts compare when order and framing are ignored: trimmed, line endings and trailing blanks aside. */
export function normalText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim()
}

/** What a multi-mode discovery takes from the command's options: the deny-list exceptions and the expansion budget. */
export type DiscoveryLimits = Pick<DiscoverAllOptions, 'allowFiles' | 'maxExpandedFiles' | 'maxExpandedBytes'>

/** The {@link DiscoveryLimits} set in `options` (project or command options), the unset ones left out. */
export function discoveryLimits(options: {
  allowFiles?: readonly string[] | undefined
  maxExpandedFiles?: number | undefined
  maxExpandedBytes?: number | undefined
}): DiscoveryLimits {
  return {
    ...(options.allowFiles === undefined ? {} : { allowFiles: options.allowFiles }),
    ...(options.maxExpandedFiles === undefined ? {} : { maxExpandedFiles: options.maxExpandedFiles }),
    ...(options.maxExpandedBytes === undefined ? {} : { maxExpandedBytes: options.maxExpandedBytes }),
  }
}
