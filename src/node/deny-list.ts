import picomatch from 'picomatch/posix.js'

/**
 * Names that `file:` variables, instruction files and their imports never
 * read by default: version-control metadata (a `.git/config` holds remote
 * URLs with tokens), the usual secret-bearing files, and the credential
 * files of the coding agents themselves (Gemini CLI's `oauth_creds.json`,
 * Claude Code's `.credentials.json`, Codex's `auth.json`). Matched against
 * every component of the path below its root, and of the real path a link
 * resolves to, so `sub/.env` and a link to `.git/config` are caught too.
 * Names only, never contents. `--allow-file GLOB` opts a path back in.
 */
export const DEFAULT_DENY_LIST: readonly string[] = [
  '.git/',
  '.hg/',
  '.svn/',
  '.env',
  '.env.*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
  'id_ecdsa*',
  'id_dsa*',
  '.npmrc',
  '.netrc',
  '.pgpass',
  'oauth_creds.json',
  '.credentials.json',
  'credentials.json',
  'auth.json',
]

/** `.env.*` files that hold no secrets by convention: documented examples. */
const ENV_EXAMPLES = new Set(['.env.example', '.env.sample', '.env.template'])

/** Says whether a path below a root is on the deny-list, and by which entry. */
export interface DenyList {
  /** The deny-list entry `relPath` (`/`-separated, relative to its root) matches, or `undefined` when it may be read. */
  match(relPath: string): string | undefined
}

/**
 * The default deny-list with `allow` globs (picomatch, relative to the
 * project root, dot files matched) taken back out: a path an allow glob
 * matches is never denied.
 */
export function denyList(allow: readonly string[] = []): DenyList {
  const allowed = allow.map((glob) => picomatch(glob.replace(/^\.\//, ''), { dot: true }))
  const names = DEFAULT_DENY_LIST.map((entry) => ({
    entry,
    directory: entry.endsWith('/'),
    test: picomatch(entry.replace(/\/$/, ''), { dot: true }),
  }))
  return {
    match(relPath) {
      const normal = relPath.split('\\').join('/').replace(/^\.\//, '')
      if (allowed.some((test) => test(normal))) return undefined
      const parts = normal.split('/').filter((p) => p !== '' && p !== '.')
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!
        const last = i === parts.length - 1
        for (const name of names) {
          // A directory entry (`.git/`) matches any component, the `.git` file of a worktree included; a file entry only the name.
          if (!name.directory && !last) continue
          if (!name.test(part)) continue
          if (name.entry === '.env.*' && ENV_EXAMPLES.has(part)) continue
          return name.entry
        }
      }
      return undefined
    },
  }
}
