import { resolve } from 'node:path'
import type { AssembleContext, VariableInfo, VariableResolver } from '../../registry/types.js'
import { utf8Length } from '../../shared/hash.js'
import type { FileSystemAdapter } from '../adapters.js'
import type { DenyList } from '../deny-list.js'
import {
  DEFAULT_MAX_EXPANDED_BYTES,
  DEFAULT_MAX_EXPANDED_FILES,
  groupDigits,
} from '../instructions/budget.js'
import { type ReadOutcome, readConfinedFile } from '../safe-read.js'

export interface FileResolverOptions {
  fs: FileSystemAdapter
  /** The directories a file may lie in: the project root, then any extra roots. */
  roots: readonly string[]
  /** Bytes of a file kept before the truncation marker. */
  maxBytes: number
  /** Relative paths are taken from here (the assembly's working directory). */
  cwdOf: (context: AssembleContext) => string
  /** Names never read (`.git/`, `.env`, keys…): such a key is absent. */
  denyList?: DenyList
  /**
   * The budget of one resolution (one render): at most `maxFiles` distinct
   * files (default 200) and `maxBytes` bytes of text as the template places
   * it (default 4 MiB), each value counted once per use (`usesOf`). Past it a
   * value is a mark, `[withheld: file:docs/a.md, past the expansion budget …]`.
   */
  budget?: FileBudget
}

/** How much text `file:` may bring into one render; see {@link FileResolverOptions.budget}. */
export interface FileBudget {
  maxFiles?: number
  maxBytes?: number
  /** How often the template places a key (a value used twice costs twice); default once. */
  usesOf?: (key: string) => number
  /** Told, once per resolution, which key the budget first had no room for. */
  onExceeded?: (message: string) => void
}

const CATALOG: VariableInfo[] = [
  {
    key: 'file:<path>',
    description:
      'The text of a file under the project root (relative to the working directory); absent when missing, outside the root, binary, not a regular file, or on the deny-list (.git/, .env*, keys)',
    example: 'file:AGENTS.md',
    stability: 'session',
    pattern: true,
  },
]

/**
 * The `file` namespace (SPEC §3): `file:docs/AGENTS.md` is that file's text.
 * Every read goes through `readConfinedFile`, so a path that leaves the
 * roots, a NUL byte, a directory, a device, a FIFO or a binary file is
 * simply absent and never blocks. A file over the cap is cut at its last
 * line boundary within the cap (mid-line only when its first line alone is
 * longer) and ends with one marker line, such as
 * `[… truncated: 52 428 800 bytes of docs/big.md, showing the first 262 144 …]`,
 * naming the path as the template wrote it. A file named by several keys
 * is read once per resolution; the values of one resolution share an
 * expansion budget (see {@link FileResolverOptions.budget}), so a template
 * naming one large file thousands of times cannot exhaust memory.
 */
export function fileResolver(options: FileResolverOptions): VariableResolver {
  const maxFiles = options.budget?.maxFiles ?? DEFAULT_MAX_EXPANDED_FILES
  const maxBytes = options.budget?.maxBytes ?? DEFAULT_MAX_EXPANDED_BYTES
  const usesOf = options.budget?.usesOf ?? (() => 1)
  const textOf = (outcome: ReadOutcome, path: string): string | null => {
    if (!outcome.ok) return null
    if (!outcome.truncated) return outcome.text
    const lastBreak = outcome.text.lastIndexOf('\n')
    const kept = lastBreak === -1 ? `${outcome.text}\n` : outcome.text.slice(0, lastBreak + 1)
    const shown = lastBreak === -1 ? utf8Length(outcome.text) : utf8Length(kept)
    return `${kept}[… truncated: ${groupDigits(outcome.size)} bytes of ${path}, showing the first ${groupDigits(shown)} …]`
  }
  return {
    namespace: 'file',
    describe: () => CATALOG.map((info) => ({ ...info })),
    async resolve(keys, context) {
      const base = options.cwdOf(context)
      // One read per file however many keys name it (`file:a.md`, `file:./a.md`), in key order, so the budget is the same each time.
      const reads = new Map<string, ReadOutcome>()
      const files = new Set<string>()
      let bytes = 0
      let spent = false
      const values = new Map<string, string | null>()
      for (const key of keys) {
        if (!key.startsWith('file:')) {
          values.set(key, null)
          continue
        }
        const path = key.slice('file:'.length)
        if (spent) {
          values.set(key, withheld(key, maxFiles, maxBytes))
          continue
        }
        const lexical = path.includes('\0') ? path : resolve(base, path)
        let outcome = reads.get(lexical)
        if (outcome === undefined) {
          if (files.size >= maxFiles) {
            spent = true
            options.budget?.onExceeded?.(exceeded(key, maxFiles, maxBytes, 'its files are used up'))
            values.set(key, withheld(key, maxFiles, maxBytes))
            continue
          }
          outcome = await readConfinedFile(path, base, {
            roots: options.roots,
            maxBytes: options.maxBytes,
            fs: options.fs,
            ...(options.denyList === undefined ? {} : { denyList: options.denyList }),
          })
          reads.set(lexical, outcome)
          if (outcome.ok) files.add(outcome.realPath)
        }
        const value = textOf(outcome, path)
        if (value === null) {
          values.set(key, null)
          continue
        }
        const cost = Math.max(1, usesOf(key)) * utf8Length(value)
        if (bytes + cost > maxBytes) {
          spent = true
          const uses = usesOf(key) > 1 ? `, placed ${usesOf(key)} times,` : ''
          options.budget?.onExceeded?.(
            exceeded(
              key,
              maxFiles,
              maxBytes,
              `its text${uses} would bring it to ${groupDigits(bytes + cost)} bytes`,
            ),
          )
          values.set(key, withheld(key, maxFiles, maxBytes))
          continue
        }
        bytes += cost
        values.set(key, value)
      }
      return values
    },
  }
}

/** The mark that stands for a value past the budget. */
function withheld(key: string, maxFiles: number, maxBytes: number): string {
  return `[withheld: ${key}, past the expansion budget of ${files(maxFiles)} and ${groupDigits(maxBytes)} bytes]`
}

function exceeded(key: string, maxFiles: number, maxBytes: number, why: string): string {
  return `${key} is past the expansion budget of file: values (${files(maxFiles)} and ${groupDigits(maxBytes)} bytes of text per render; ${why}); it and every file: value after it were replaced by a withheld mark. Use fewer or smaller files, or raise --max-expanded-files / --max-expanded-bytes.`
}

function files(n: number): string {
  return `${groupDigits(n)} ${n === 1 ? 'file' : 'files'}`
}
