/** What to send before a turn, and the map to remember as sent. */
export interface EnvironmentDelta {
  /** The `<environment>` message, or `null` when nothing changed since `previous`. */
  message: string | null
  /** The whole current map: pass it as `previous` next time. */
  sent: Record<string, string>
}

// One `key: value` line each: a line break inside a value would forge a line
// (even the closing tag), so breaks are written as the two characters `\n`.
function escapeLineBreaks(value: string): string {
  return value.replace(/\r\n|\r|\n/g, '\\n')
}

/**
 * The environment-context message for one turn (SPEC §5, seed 002): volatile
 * facts (date, cwd, git branch…) stay out of the system prompt and reach the
 * model as an append-only message, sent only when something changed since
 * the last one sent in the session. Lists new and changed keys, a removed key
 * as `key: (none)`, one `key: value` line each in code-unit key order, between
 * `<environment>` and `</environment>` lines; `null` when nothing changed.
 * With no `previous` (the first turn), every current key is new.
 */
export function environmentDelta(
  previous: Record<string, string> | undefined,
  current: Record<string, string>,
): EnvironmentDelta {
  const before = previous ?? {}
  const lines = new Map<string, string>()
  for (const key of Object.keys(current)) {
    const value = current[key]!
    if (!Object.hasOwn(before, key) || before[key] !== value) lines.set(key, escapeLineBreaks(value))
  }
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(current, key)) lines.set(key, '(none)')
  }
  const sent = { ...current }
  if (lines.size === 0) return { message: null, sent }
  const body = [...lines.keys()].sort().map((key) => `${key}: ${lines.get(key)}`)
  return { message: ['<environment>', ...body, '</environment>'].join('\n'), sent }
}
