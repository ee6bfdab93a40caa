/**
 * How long a value stays true (SPEC §3): `static` for every session of a
 * deployment, `session` for one session, `turn` may change between turns.
 * Defined here because the fragment format's `stability` field takes the same
 * words the registry does; the registry re-exports it.
 */
export type Stability = 'static' | 'session' | 'turn'

/**
 * A template dialect (SPEC §2): `mustache` (`{{key}}`) or `bracket`
 * (`[namespace:key]`). Defined here because a fragment's front matter may
 * name one; the template layer re-exports it.
 */
export type Dialect = 'mustache' | 'bracket'
