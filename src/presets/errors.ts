/** Stable codes of {@link PresetError}. */
export type PresetErrorCode =
  | 'dynamic-persona'
  | 'empty-persona'
  | 'context-mismatch'
  | 'skills-without-context'
  | 'invalid-option'
  | 'duplicate-tool'
  | 'duplicate-fragment'
  | 'missing-fragment'

/**
 * Inputs a preset cannot turn into a coherent prompt (SPEC §7): a worker
 * persona that is dynamic (`dynamic-persona`) or empty (`empty-persona`), a
 * `hasCanonicalContext` flag that disagrees with the admitted tools
 * (`context-mismatch`), bound skills without the `context` tool
 * (`skills-without-context`), an option outside its documented values
 * (`invalid-option`), two tools or extra fragments with one name
 * (`duplicate-tool`, `duplicate-fragment`), or a preset fragment id that
 * neither the built-in words nor the given fragments hold
 * (`missing-fragment`). These are programming errors of the caller: the
 * message names the preset, the input and what to change.
 */
export class PresetError extends Error {
  override readonly name = 'PresetError'
  readonly code: PresetErrorCode

  constructor(code: PresetErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
  }
}
