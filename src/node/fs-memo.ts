import { readdir } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { DirEntry, FileSystemAdapter } from './adapters.js'

/**
 * The entries of `dir` through `fs` when it lists directories (a
 * {@link memoFs} does, once per directory), else straight from the file
 * system.
 */
export function listDir(fs: FileSystemAdapter, dir: string): Promise<DirEntry[]> {
  return fs.readdir === undefined ? readdir(dir, { withFileTypes: true }) : fs.readdir(dir)
}

/**
 * A file-system adapter that asks `base` once per path and question, for
 * the discoveries of one report that look at the same tree (plain
 * `inspect` runs every mode: each would list the same directories and
 * stat the same files). It holds what it was told for as long as it lives:
 * make one per report, never keep one across runs. Reads are kept per
 * path and byte limit; a failure is kept as the same failure.
 */
export function memoFs(base: FileSystemAdapter): FileSystemAdapter {
  const memo = <T>(cache: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> => {
    let found = cache.get(key)
    if (found === undefined) {
      found = ask()
      cache.set(key, found)
    }
    return found
  }
  const realpaths = new Map<string, Promise<string>>()
  const stats = new Map<string, ReturnType<FileSystemAdapter['stat']>>()
  const reads = new Map<string, ReturnType<FileSystemAdapter['readFile']>>()
  const listings = new Map<string, Promise<DirEntry[]>>()
  const list = (path: string) => memo(listings, path, () => listDir(base, path))
  /**
   * Whether the listing of the file's directory says it is not there: most
   * stats of a discovery ask for a name in a directory that lacks it (every
   * candidate name, in every directory walked), and one listing answers them
   * all. A name present in any case, or a directory that cannot be listed,
   * is asked of the file system itself.
   */
  const absent = async (path: string): Promise<boolean> => {
    const entries = await list(dirname(path)).catch(() => undefined)
    if (entries === undefined) return false
    const name = basename(path).toLowerCase()
    return !entries.some((e) => e.name.toLowerCase() === name)
  }
  return {
    realpath: (path) => memo(realpaths, path, () => base.realpath(path)),
    stat: (path) =>
      memo(stats, path, async () => {
        if (dirname(path) !== path && (await absent(path)))
          throw Object.assign(new Error(`ENOENT: no such file or directory, stat '${path}'`), {
            code: 'ENOENT',
          })
        return base.stat(path)
      }),
    readFile: (path, maxBytes) => memo(reads, `${maxBytes}\0${path}`, () => base.readFile(path, maxBytes)),
    readdir: list,
  }
}
