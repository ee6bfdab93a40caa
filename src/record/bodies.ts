import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { SafeWriteError, writeFileSafely } from '../node/safe-write.js'
import { ensurePrivateDirectory, ensurePrivateFile } from '../store/paths.js'

/**
 * Where `--keep-bodies` keeps message texts (issue 33): files beside the
 * store in the user's state directory, one per distinct message, named by
 * its content hash, so a long conversation stores each message once. The
 * directory is the user's, mode 0700; each file 0600, written once and
 * never through a link. Texts arrive masked.
 */
export async function bodyKeeper(dir: string): Promise<(hash: string, text: string) => Promise<void>> {
  ensurePrivateDirectory(dir)
  const kept = new Set((await readdir(dir)).filter((n) => n.endsWith('.json')))
  return async (hash, text) => {
    const name = `${hash.replace(/^sha256:/, '')}.json`
    if (!/^[0-9a-f]{64}\.json$/.test(name) || kept.has(name)) return
    kept.add(name)
    const path = join(dir, name)
    try {
      // The directory is 0700, so the file is never readable by another user, before or after it is tightened.
      await writeFileSafely(path, text, { root: dir, exclusive: true, durable: false })
    } catch (error) {
      // Another recorder wrote the same message first: same hash, same text.
      if (!(error instanceof SafeWriteError && error.code === 'exists')) throw error
    }
    ensurePrivateFile(path)
  }
}
