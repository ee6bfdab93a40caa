import type { AssembledSection, PromptAssembly, Stability } from '../registry/types.js'
import { compileTemplate } from '../template/index.js'

const RANK: Record<Stability, number> = { static: 0, session: 1, turn: 2 }

/** The more volatile of two stabilities (`turn` > `session` > `static`). */
export function mostVolatile(a: Stability, b: Stability): Stability {
  return RANK[b] > RANK[a] ? b : a
}

/** A section's effective stability and the referenced keys whose own stability is `turn`. */
export interface SectionStability {
  stability: Stability
  /** Referenced keys of stability `turn`, in first-appearance order. */
  turnKeys: string[]
}

/**
 * The stability of one referenced key: its entry in `assembly.stability`,
 * else `session` when the assembly has the variable (registered variables
 * default to `session`, SPEC §4), else `undefined` (an unknown key renders as
 * nothing, so no value of it can go stale).
 */
export function variableStability(
  assembly: Pick<PromptAssembly, 'variables' | 'stability'>,
  key: string,
): Stability | undefined {
  // hasOwn, not `in` or indexing: a key named `constructor` must not find Object.prototype's.
  if (Object.hasOwn(assembly.stability, key)) return assembly.stability[key]
  if (Object.hasOwn(assembly.variables, key)) return 'session'
  return undefined
}

/**
 * The effective stability of a section that declares `declared` and
 * references `keys` (SPEC §4): the most volatile of them all. Conditions
 * count as references: a condition on a `turn` key can flip between turns as
 * surely as an insertion changes.
 */
export function stabilityOf(
  declared: Stability | undefined,
  keys: readonly string[],
  assembly: Pick<PromptAssembly, 'variables' | 'stability'>,
): SectionStability {
  let stability: Stability = declared ?? 'static'
  const turnKeys: string[] = []
  for (const key of keys) {
    const own = variableStability(assembly, key)
    if (own === undefined) continue
    stability = mostVolatile(stability, own)
    if (own === 'turn') turnKeys.push(key)
  }
  return { stability, turnKeys }
}

/** {@link stabilityOf}'s `stability` alone, allocating nothing: what compile asks of every section. */
export function effectiveStabilityOf(
  declared: Stability | undefined,
  keys: readonly string[],
  assembly: Pick<PromptAssembly, 'variables' | 'stability'>,
): Stability {
  let stability: Stability = declared ?? 'static'
  for (let i = 0; i < keys.length && stability !== 'turn'; i++) {
    const own = variableStability(assembly, keys[i]!)
    if (own !== undefined) stability = mostVolatile(stability, own)
  }
  return stability
}

/**
 * A section's effective stability, reading the keys it references from the
 * lenient compile of its text (which the template cache keeps, so an
 * unchanged section costs a lookup). See {@link stabilityOf}.
 */
export function effectiveStability(
  section: Pick<AssembledSection, 'text' | 'dialect' | 'stability'>,
  assembly: Pick<PromptAssembly, 'variables' | 'stability'>,
): SectionStability {
  const keys = compileTemplate(section.text, { dialect: section.dialect, strict: false }).variables
  return stabilityOf(section.stability, keys, assembly)
}
