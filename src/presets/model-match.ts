import picomatch from 'picomatch/posix.js'

/**
 * Whether a model id matches any of a fragment's `models:` globs (SPEC §6).
 * Matching ignores case, and a glob is tried against the whole id and
 * against its last `/`-separated part, so `claude-*` matches both
 * `claude-sonnet-4-5` and `anthropic/claude-sonnet-4-5` (gateways prefix
 * vendor paths that a family glob should not have to spell).
 */
export function modelMatches(globs: readonly string[], model: string): boolean {
  const id = model.trim()
  if (id.length === 0) return false
  const tail = id.slice(id.lastIndexOf('/') + 1)
  return globs.some((glob) => {
    const test = picomatch(glob, { nocase: true, dot: true })
    return test(id) || test(tail)
  })
}

/**
 * Whether a fragment is used for `model` (SPEC §6 `models:`): a fragment
 * without `models` always is; one with `models` only when a model is given
 * and matches one of its globs ({@link modelMatches}). With no model the
 * answer is no: a fragment written for some models must not reach a prompt
 * whose model nobody named (the same choice `sysprompt explain` makes for
 * rules), so a model-specific override never silently becomes the default.
 */
export function fragmentApplies(
  fragment: { readonly models?: readonly string[] },
  model: string | undefined,
): boolean {
  if (fragment.models === undefined) return true
  return model !== undefined && modelMatches(fragment.models, model)
}
