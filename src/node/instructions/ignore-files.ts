import { dirname, join, relative, sep } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { readConfinedFile } from '../safe-read.js'
import type { DiscoveryContext } from './context.js'

/**
 * Version-control metadata: never walked for instruction files, whatever
 * the ignore files say (Gemini CLI's `gitIgnoreParser.ts` always ignores
 * `.git`; the deny-list refuses `.git/`, `.hg/`, `.svn/` by name).
 */
export const VCS_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', '.jj'])

/**
 * Directories the walk never enters whatever the ignore files say: VCS
 * metadata, and `node_modules`, which is huge when present, gitignored in
 * practice, and where no harness is asked to read a project's rules.
 */
export const NEVER_WALKED: ReadonlySet<string> = new Set([...VCS_DIRS, 'node_modules'])

/** The most bytes of one ignore file read (a larger one is cut: the rules past the cut are not applied). */
const IGNORE_FILE_MAX_BYTES = 256 * 1024

export type { LeftOut } from './loaded.js'

interface Layer {
  dir: string
  rules: Ignore
}

/**
 * The ignore files a harness honours (`.gitignore`, Gemini CLI's
 * `.geminiignore`, …), read once per directory as a walk meets them, from
 * the repository root down: a deeper file's rule wins, as in git. Outside
 * a git repository `.gitignore` is not honoured (git does not apply it),
 * the other names are.
 */
export class IgnoreFiles {
  private readonly layers = new Map<string, Layer | undefined>()
  private readonly base: string
  private readonly names: readonly string[]

  constructor(
    private readonly context: DiscoveryContext,
    names: readonly string[],
  ) {
    this.base = context.gitRoot ?? context.cwd
    this.names = context.gitRoot === null ? names.filter((n) => n !== '.gitignore') : names
  }

  /** Whether any ignore file is honoured at all. */
  get active(): boolean {
    return this.names.length > 0
  }

  /** Reads the ignore files of `dir` (once); `present` is the names the directory listing holds, when known. */
  private async layer(dir: string, present?: ReadonlySet<string>): Promise<Layer | undefined> {
    if (this.layers.has(dir)) return this.layers.get(dir)
    let rules: Ignore | undefined
    for (const name of this.names) {
      if (present !== undefined && !present.has(name)) continue
      const path = join(dir, name)
      const read = await readConfinedFile(path, dir, {
        fs: this.context.fs,
        roots: [this.base],
        denyList: this.context.denyList,
        maxBytes: IGNORE_FILE_MAX_BYTES,
      })
      if (!read.ok) continue
      rules ??= ignore()
      const shown = this.context.display(path)
      read.text.split(/\r?\n/).forEach((line, index) => {
        // `ignore` skips blank lines and comments itself; the mark names the line for `explain`.
        rules!.add({ pattern: line, mark: `${shown} line ${index + 1}` })
      })
    }
    const layer = rules === undefined ? undefined : { dir, rules }
    this.layers.set(dir, layer)
    return layer
  }

  /** Reads the ignore files from the repository root down to `dir` (the directories above where a walk starts). */
  async prime(dir: string): Promise<void> {
    if (!this.active) return
    const chain: string[] = []
    for (let d = dir; ; d = dirname(d)) {
      chain.unshift(d)
      if (d === this.base || dirname(d) === d || relative(this.base, d).startsWith('..')) break
    }
    for (const d of chain) await this.layer(d)
  }

  /** Records the ignore files present in a directory being walked (`names` from its listing). */
  async enter(dir: string, names: ReadonlySet<string>): Promise<void> {
    if (this.active) await this.layer(dir, names)
  }

  /**
   * The rule that ignores the directory `child` (`file line N: pattern`),
   * or `undefined`: the deepest ignore file with a rule for it decides
   * (an ignoring rule, or a `!` rule that takes it back).
   */
  ruleFor(child: string): string | undefined {
    if (!this.active) return undefined
    for (let d = dirname(child); ; d = dirname(d)) {
      const layer = this.layers.get(d)
      if (layer !== undefined) {
        const rel = `${relative(d, child).split(sep).join('/')}/`
        const result = layer.rules.test(rel)
        if (result.ignored) return `${result.rule?.mark}: ${result.rule?.pattern}`
        if (result.unignored) return undefined
      }
      if (d === this.base || dirname(d) === d) return undefined
    }
  }
}
