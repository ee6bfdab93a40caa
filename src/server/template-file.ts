import { lstat, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { nodeAdapters, nodeHash, readConfinedFile, SafeWriteError, writeFileSafely } from '../node/index.js'
import { projectTemplatePath } from '../node/project/template-source.js'

/** Template files over this many bytes are not served (the request limit is 1 MiB as well). */
const MAX_TEMPLATE_BYTES = 1024 * 1024

/** The served template file as read: its text and content hash, or absent. */
export type TemplateFile = { exists: true; text: string; hash: string; updatedAt: string } | { exists: false }

/** `sha256:` + hex of the UTF-8 text, the hash compare-and-set runs on. */
export const contentHash = (text: string): string => `sha256:${nodeHash(text)}`

/** Why the template file could not be read or written. */
export class TemplateFileError extends Error {
  override readonly name = 'TemplateFileError'
}

/** Reads `.sysprompt/template.md` of `root` through the confined read path. */
export async function readTemplateFile(root: string): Promise<TemplateFile> {
  const path = projectTemplatePath(root)
  const fs = nodeAdapters().fs
  const outcome = await readConfinedFile(path, root, { roots: [root], maxBytes: MAX_TEMPLATE_BYTES, fs })
  if (!outcome.ok) {
    if (outcome.reason === 'missing') return { exists: false }
    throw new TemplateFileError(`.sysprompt/template.md cannot be read (${outcome.reason})`)
  }
  if (outcome.truncated) throw new TemplateFileError('.sysprompt/template.md is over 1 MiB')
  const stat = await lstat(path)
  return {
    exists: true,
    text: outcome.text,
    hash: contentHash(outcome.text),
    updatedAt: stat.mtime.toISOString(),
  }
}

async function realDirectory(path: string): Promise<boolean> {
  const stat = await lstat(path).catch(() => undefined)
  if (stat === undefined) return false
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    throw new TemplateFileError(`${path} is not a real directory; the template is written only into one`)
  }
  return true
}

/**
 * Writes `.sysprompt/template.md` through the shared safe-write path
 * (`writeFileSafely`): a fresh temporary file beside it, flushed, renamed
 * over the target; never through a link. `.sysprompt/` must be a real
 * directory (created when missing), and the target, when it exists, a
 * regular file.
 */
export async function writeTemplateFile(root: string, text: string): Promise<void> {
  const path = projectTemplatePath(root)
  const dir = dirname(path)
  if (!(await realDirectory(dir))) await mkdir(dir, { mode: 0o755 })
  try {
    await writeFileSafely(path, text, { root })
  } catch (error) {
    if (!(error instanceof SafeWriteError)) throw error
    throw new TemplateFileError(
      error.code === 'target-is-link' || error.code === 'not-a-file'
        ? '.sysprompt/template.md is not a regular file; remove it first'
        : `.sysprompt/template.md was not written: ${error.message}`,
      { cause: error },
    )
  }
}
