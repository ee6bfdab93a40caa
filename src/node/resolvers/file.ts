import type { AssembleContext, VariableInfo, VariableResolver } from '../../registry/types.js'
import { utf8Length } from '../../shared/hash.js'
import type { FileSystemAdapter } from '../adapters.js'
import type { DenyList } from '../deny-list.js'
import { groupDigits } from '../instructions/budget.js'
import { readConfinedFile } from '../safe-read.js'

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
 * naming the path as the template wrote it.
 */
export function fileResolver(options: FileResolverOptions): VariableResolver {
  const read = async (path: string, base: string): Promise<string | null> => {
    const outcome = await readConfinedFile(path, base, {
      roots: options.roots,
      maxBytes: options.maxBytes,
      fs: options.fs,
      ...(options.denyList === undefined ? {} : { denyList: options.denyList }),
    })
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
      const values = await Promise.all(
        keys.map((key) => (key.startsWith('file:') ? read(key.slice('file:'.length), base) : null)),
      )
      return new Map(keys.map((key, i) => [key, values[i] ?? null]))
    },
  }
}
