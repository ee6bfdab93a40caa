/**
 * The oldest Node.js release sysprompt runs on, checked by the launcher
 * before anything else loads, so that an older Node gets one line that
 * names the version it needs instead of a crash in a native module or a
 * syntax error. The minimum is `package.json`'s `engines.node` (a
 * `>=MAJOR.MINOR[.PATCH]` range), which the build puts into the launcher.
 *
 * No `node:*` and no syntax newer than the launcher's build target: this
 * runs on the Node it refuses.
 */

/** `[major, minor, patch]` of a version such as `v20.20.2`, `22.19` or `>=22.19.0`; undefined when it is none. */
export function versionParts(text: string): [number, number, number] | undefined {
  const match = /^(?:>=\s*)?v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.trim())
  if (match === null) return undefined
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)]
}

/** The minimum as people write it: `22.19` for `>=22.19` or `>=22.19.0`. */
function shown(minimum: string): string {
  return minimum.replace(/^>=\s*/, '').replace(/\.0$/, '')
}

/**
 * The line to print when `running` (`process.version`) is older than
 * `minimum` (`engines.node`, `>=22.19`); undefined when it is new enough,
 * or when either cannot be read (a check that cannot decide never blocks).
 */
export function nodeVersionProblem(running: string, minimum: string): string | undefined {
  const have = versionParts(running)
  const need = versionParts(minimum)
  if (have === undefined || need === undefined) return undefined
  for (let i = 0; i < 3; i++) {
    if (have[i]! > need[i]!) return undefined
    if (have[i]! < need[i]!)
      return `sysprompt needs Node.js ${shown(minimum)} or later; this is Node.js ${running.replace(/^v/, '')}.\n`
  }
  return undefined
}
