import type { DiskCountCache } from '../node/count-cache.js'

// The disk count cache of one command run: opened by the first prompt build
// that counts, written once when the command has finished (`run` calls
// `flushCountCache`). A type-only import keeps `sysprompt --help` from
// loading the node layer.
let open: DiskCountCache | undefined

/**
 * The count cache for this run, in the user's cache directory; none with
 * `--no-cache`, `SYSPROMPT_CACHE=off`, or when there is no cache directory.
 */
export async function countCacheFor(
  useCache: boolean,
  env: Record<string, string | undefined>,
): Promise<DiskCountCache | undefined> {
  if (!useCache || env.SYSPROMPT_CACHE === 'off') return undefined
  const { diskCountCache, userCacheDir } = await import('../node/count-cache.js')
  const dir = userCacheDir(env)
  if (dir === undefined) return undefined
  if (open === undefined || open.dir !== dir) open = diskCountCache({ dir })
  return open
}

/** Writes the counts this run added (a cache that cannot be written is skipped: it never fails a command). */
export async function flushCountCache(): Promise<void> {
  const cache = open
  open = undefined
  await cache?.flush()
}
