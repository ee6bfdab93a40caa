import { PresetError } from './errors.js'

/** The autonomy levels of the session and worker presets, from most to least guarded (SPEC §7). */
export const AUTONOMY_LEVELS = ['read-only', 'suggest', 'auto-edit', 'full-auto'] as const

/**
 * How much an agent may do without asking: `read-only` changes nothing,
 * `suggest` asks before every non-read action, `auto-edit` edits the
 * workspace and runs recognised commands, `full-auto` asks only for changes
 * outside the workspace.
 */
export type Autonomy = (typeof AUTONOMY_LEVELS)[number]

/** Throws an `invalid-option` PresetError unless `value` is an autonomy level. */
export function checkAutonomy(value: unknown, preset: string): Autonomy {
  if (typeof value === 'string' && (AUTONOMY_LEVELS as readonly string[]).includes(value))
    return value as Autonomy
  throw new PresetError(
    'invalid-option',
    `${preset}: autonomy ${JSON.stringify(value)} is unknown; use one of ${AUTONOMY_LEVELS.join(', ')}`,
  )
}
