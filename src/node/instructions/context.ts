import { relative, sep } from 'node:path'
import type { FileSystemAdapter } from '../adapters.js'
import { type DenyList, denyList } from '../deny-list.js'
import { isInside } from '../safe-read.js'
import type { InstructionMode, PreloadRequest, RuleActivation } from './discovery-options.js'
import type {
  DiagnosticSite,
  HarnessProfileInfo,
  InstructionDiagnostic,
  InstructionDiagnosticCode,
  InstructionExplanation,
  InstructionReasonCode,
  RequestedRule,
  Withheld,
} from './discovery-results.js'
import type { HarnessSettings, Setting } from './harness-config/settings.js'
import type { LeftOut, OnDemandCandidate } from './loaded.js'
import { withheldWords } from './withheld.js'

/** A file that replaces or extends a harness's own prompt. */
export interface PromptFile {
  path: string
  text: string
}

/** What discovery decided about one file, kept for `explainInstructions`. */
export type Decision = Omit<InstructionExplanation, 'file'>

/** Decisions that say a file made it into the prompt. */
const LOADED: ReadonlySet<InstructionReasonCode> = new Set(['included', 'imported', 'truncated'])

/** Skips about one import of a file that may be loaded through another path: they never hide that it was loaded. */
const SOFT: ReadonlySet<InstructionReasonCode> = new Set(['duplicate', 'import-cycle', 'import-too-deep'])

/**
 * Everything one discovery run knows: the resolved directories, the options,
 * the diagnostics so far and a decision for every file it looked at. Modes
 * read it and record into it; nothing here touches a file except the setup.
 */
export class DiscoveryContext {
  readonly diagnostics: InstructionDiagnostic[] = []
  readonly decisions = new Map<string, Decision>()
  /** Directories the mode's walk covered, and a sentence describing the walk (for explanations). */
  walk: { dirs: readonly string[]; description: string } = { dirs: [], description: '' }
  /** Directories a nested walk left out (ignored by an ignore file, VCS metadata, …), with why (for explanations). */
  readonly leftOut = new Map<string, LeftOut>()
  /** Every file name the mode reads in a walked directory (for explanations). */
  candidates: readonly string[] = []
  /** Files the mode found that the harness loads only when the agent works near them, in the order found. */
  readonly onDemand: OnDemandCandidate[] = []
  /** When the tool applies each rule file the mode found (convention modes), by path. */
  readonly activations = new Map<string, RuleActivation>()
  /** Rules the tool loads only on request or by hand, in the order found. */
  readonly onRequest: RequestedRule[] = []
  /** Names no instruction file, import or named file is read from, by name or where a link leads (`.git/`, `.env`, keys…), less the `allowFiles` globs. */
  readonly denyList: DenyList
  /** The harness's settings in effect (its configuration files, then `harnessConfig`). */
  settings: HarnessSettings = { values: new Map(), user: new Map(), instructions: [] }
  /**
   * Files that replace or extend the harness's own prompt (pi's `SYSTEM.md`
   * and `APPEND_SYSTEM.md`), as the harness sends them.
   */
  readonly promptFiles: { replace?: PromptFile; append?: PromptFile } = {}
  /** What the harness sends besides the files that its view does not reproduce (pi 1.x's skills), in words: the view is then inexact. */
  readonly unmodelled: string[] = []
  /** Sentences the harness view carries as its `notes` (pi 1.x: the view is the untrusted one). */
  readonly viewNotes: string[] = []
  /** pi 1.x's `<skills>` section text (inside its tags), when pi lists skills. */
  piSkills: string | undefined
  /** The version profile of the harness (null in `sysprompt` mode). */
  profile: HarnessProfileInfo | null = null
  /** What set the byte cap when a harness setting did (Codex's `project_doc_max_bytes`), in words. */
  capSource: string | undefined
  /**
   * What the harness would send that safety withholds, by path: the entry,
   * whether it belongs with the global files, and its place in load order
   * (counted with `loadOrder`, so a view can put its mark where the file goes).
   */
  readonly withheld = new Map<string, { entry: Withheld; global: boolean; order: number }>()
  /** Each file's place in load order as the mode loaded it (the last load counts). */
  readonly loadOrder = new Map<string, number>()
  private loads = 0

  constructor(
    readonly mode: InstructionMode,
    /** Real path of the working directory. */
    readonly cwd: string,
    /** The project root (real path): the `root` option, else the git root, else `cwd`. */
    readonly root: string,
    /** The `root` option or the nearest `.git` ancestor: what harnesses that stop at the git root stop at; null outside a repository. */
    readonly gitRoot: string | null,
    /** Real path of the home directory. */
    readonly home: string,
    /** Whether `home` was passed (otherwise `XDG_CONFIG_HOME` may locate the sysprompt global file). */
    readonly homeGiven: boolean,
    /** Real path where upward walks stop. */
    readonly fsRoot: string,
    readonly fs: FileSystemAdapter,
    readonly options: {
      names: readonly string[] | undefined
      globalFiles: readonly string[] | undefined
      maxBytes: number | undefined
      imports: boolean
      /** The expansion budget (see `expansion.ts`). */
      maxExpandedFiles: number
      maxExpandedBytes: number
      preload: PreloadRequest
      /** Working paths, absolute. */
      paths: readonly string[]
      allowFiles: readonly string[]
      /**
       * The names the user chose (the `names` option, else the user's own
       * harness settings): the only names besides the harness's defaults
       * that are read in the user's home directories. `undefined` when only
       * the defaults are.
       */
      homeNames?: readonly string[]
    },
    /** Counts tokens with the tokenizer asked for. */
    readonly count: (text: string) => number,
    /** The name of that tokenizer. */
    readonly tokenizerName: string,
  ) {
    this.denyList = denyList(options.allowFiles)
  }

  /** Records a decision, except that a duplicate or refused re-import never hides a file that was loaded. */
  decide(path: string, decision: Decision): void {
    const previous = this.decisions.get(path)
    if (SOFT.has(decision.code) && previous !== undefined && LOADED.has(previous.code)) return
    this.decisions.set(path, decision)
  }

  /** The setting of the harness in effect under its own key name, with what set it; `undefined` at the harness's default. */
  setting(key: string): Setting | undefined {
    return this.settings.values.get(key)
  }

  /** Records that the mode loaded `path` now: its place in load order. */
  loaded(path: string): void {
    this.loadOrder.set(path, ++this.loads)
  }

  /**
   * Records a file the harness would send that sysprompt withholds, at this
   * place in load order (a later call for the same path moves it there), and
   * what `explain` says of it. True the first time the path is withheld,
   * so the caller reports it once.
   */
  withhold(entry: Withheld, global = false): boolean {
    const first = !this.withheld.has(entry.path)
    this.withheld.set(entry.path, { entry, global, order: ++this.loads })
    this.skip(entry.path, entry.code, withheldWords(this.mode, entry.reason))
    return first
  }

  skip(path: string, code: InstructionReasonCode, reason: string): void {
    this.decide(path, { status: 'skipped', code, reason })
  }

  report(
    code: InstructionDiagnosticCode,
    message: string,
    path?: string,
    severity: 'warning' | 'info' = 'warning',
    site?: DiagnosticSite,
  ): void {
    const diagnostic: InstructionDiagnostic = { code, severity, message }
    if (path !== undefined) diagnostic.path = path
    if (site !== undefined) diagnostic.site = site
    this.diagnostics.push(diagnostic)
  }

  /**
   * How a path is shown to the model and in messages: relative to the
   * project root with `/` separators, `~/…` for files under the home
   * directory that lie outside the root, `../…` for files above the root.
   */
  display(path: string): string {
    if (!isInside(this.root, path) && isInside(this.home, path))
      return `~/${posix(relative(this.home, path))}`
    return posix(relative(this.root, path)) || '.'
  }

  /**
   * The directories a project file may resolve into: the project root for
   * files inside it; for a file a walk found above the root (modes that walk
   * to the file-system root), its own directory, so a link there cannot
   * reach elsewhere.
   */
  /** What `gitRoot` is: a git root found above cwd, the root the caller chose as the boundary, or none (outside git). */
  boundary: 'git' | 'root' | 'none' = 'git'

  /** The boundary in words, for walk descriptions and `explain`: `the git root /r`, `the root /r (chosen with --root)`. */
  boundaryWords(): string {
    if (this.gitRoot === null) return 'no git root (outside any repository)'
    return this.boundary === 'root'
      ? `the root ${this.gitRoot} (chosen with --root)`
      : `the git root ${this.gitRoot}`
  }

  confinementFor(dir: string): string[] {
    return isInside(this.root, dir) ? [this.root] : [dir]
  }
}

function posix(path: string): string {
  return path.split(sep).join('/')
}
