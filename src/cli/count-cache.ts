import type { DiskCountCache } from '../node/count-cache.js'

// The disk caches of one command run: the token-count cache, opened by the
// first prompt build that counts, and the encodings' code cache beside it;
// both written once when the command has finished (`run` calls
// `flushCountCache`). A type-only import keeps `sysprompt --help` from
// loading the node layer.
let open: DiskCountCache | undefined
let codeCaches: (() => Promise<string[]>) | undefined

/**
 * The count cache for this run, in the user's cache directory; none with
 * `--no-cache`, `SYSPROMPT_CACHE=off`, when there is no cache directory, or
 * when it lies inside the project (judged from each of `starts`: the
 * working directory and project root of the run; reported once). With it,
 * an encoding that has to load compiles through V8's code cache kept in the
 * same directory.
 */
export async function countCacheFor(
  useCache: boolean,
  env: Record<string, string | undefined>,
  starts: readonly string[],
): Promise<DiskCountCache | undefined> {
  const { useEncodingCodeCache } = await import('../node/tokenizer-loaders.js')
  if (!useCache || env.SYSPROMPT_CACHE === 'off') {
    useEncodingCodeCache(undefined)
    return undefined
  }
  const [{ diskCountCache, userCacheDir }, { flushCodeCaches }, { cacheInsideProject, reportCacheProblem }] =
    await Promise.all([
      import('../node/count-cache.js'),
      import('../node/code-cache.js'),
      import('../node/user-cache.js'),
    ])
  const found = userCacheDir(env)
  const inside = found === undefined ? undefined : cacheInsideProject(found, starts)
  if (inside !== undefined) reportCacheProblem(`${inside}, so it is not used`)
  const dir = inside === undefined ? found : undefined
  useEncodingCodeCache(dir)
  if (dir === undefined) return undefined
  codeCaches = flushCodeCaches
  if (open === undefined || open.dir !== dir) open = diskCountCache({ dir })
  return open
}

/** Writes the counts (and code caches) this run added (a cache that cannot be written is skipped: it never fails a command). */
export async function flushCountCache(): Promise<void> {
  const cache = open
  open = undefined
  const code = codeCaches
  codeCaches = undefined
  await Promise.all([cache?.flush(), code?.()])
}
