import { denyList, nodeAdapters, readConfinedFile, readFailureText } from '../../node/index.js'
import { DEFAULT_FILE_MAX_BYTES } from '../../node/node-resolvers.js'
import type { ProjectPrompt } from '../../node/project/project.js'

/**
 * Why each `file:` key among `keys` is absent for a reason other than a
 * missing file (`[if file:AGENTS.md]` on a project without one is ordinary):
 * on the deny-list, outside the root, binary, not a regular file, permission
 * denied, a symlink loop. Read as the `file` resolver reads them, so the
 * reason is the one that kept the value out.
 */
export async function fileVariableReasons(
  project: ProjectPrompt,
  keys: Iterable<string>,
): Promise<Map<string, string>> {
  const fs = nodeAdapters().fs
  const deny = denyList(project.options.allowFiles ?? [])
  const out = new Map<string, string>()
  for (const key of new Set(keys)) {
    if (!key.startsWith('file:')) continue
    const path = key.slice('file:'.length)
    const outcome = await readConfinedFile(path, project.cwd, {
      roots: [project.root],
      maxBytes: DEFAULT_FILE_MAX_BYTES,
      fs,
      denyList: deny,
    })
    if (outcome.ok || outcome.reason === 'missing') continue
    out.set(key, `${key} is absent: ${path} ${readFailureText(outcome)}`)
  }
  return out
}
