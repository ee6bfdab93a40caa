import { lstat, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { withFileLock } from '../node/file-lock.js'
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

/** The lock file beside the template that writers take (`template.md.lock`). */
export const templateLockPath = (root: string): string => `${projectTemplatePath(root)}.lock`

/** `.sysprompt/` as a real directory, created when missing; a link or a file there is refused. */
async function templateDirectory(root: string): Promise<void> {
  const dir = dirname(projectTemplatePath(root))
  if (!(await realDirectory(dir)))
    await mkdir(dir, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
      // Another writer created it meanwhile: fine, if it is a real directory.
      if (error.code !== 'EEXIST') throw error
    })
  await realDirectory(dir)
}

/**
 * Writes `.sysprompt/template.md` through the shared safe-write path
 * (`writeFileSafely`): a fresh temporary file beside it, flushed, renamed
 * over the target; never through a link. `.sysprompt/` must be a real
 * directory (created when missing), and the target, when it exists, a
 * regular file. `beforeCommit` runs just before the rename (and may abort
 * it by throwing).
 */
export async function writeTemplateFile(
  root: string,
  text: string,
  beforeCommit?: () => Promise<void>,
): Promise<void> {
  const path = projectTemplatePath(root)
  await templateDirectory(root)
  try {
    await writeFileSafely(path, text, { root, ...(beforeCommit === undefined ? {} : { beforeCommit }) })
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

/**
 * Replaces `.sysprompt/template.md` with `text` as a compare-and-swap that
 * holds across processes (several servers, or a server and a second
 * one, on one project): under the lock file beside it
 * (`.sysprompt/template.md.lock`, see `src/node/file-lock.ts`), `check`
 * is given the file as it is (it throws to refuse: a stale hash), the new
 * text is written to a temporary file, and just before the rename the file
 * is read again: if it changed meanwhile (a writer that takes no lock, an
 * editor), `check` judges the new content before it is replaced. Answers
 * the file as written.
 */
export async function swapTemplateFile(
  root: string,
  text: string,
  check: (current: TemplateFile) => Promise<void> | void,
): Promise<TemplateFile> {
  await templateDirectory(root)
  return withFileLock(
    templateLockPath(root),
    async () => {
      const before = await readTemplateFile(root)
      await check(before)
      const seen = before.exists ? before.hash : null
      await writeTemplateFile(root, text, async () => {
        const now = await readTemplateFile(root)
        if ((now.exists ? now.hash : null) !== seen) await check(now)
      })
      const written = await lstat(projectTemplatePath(root))
      return { exists: true, text, hash: contentHash(text), updatedAt: written.mtime.toISOString() }
    },
    { root },
  )
}
