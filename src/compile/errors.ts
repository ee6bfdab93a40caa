/** Stable codes of {@link CompileError} (SPEC §5). */
export type CompileErrorCode = 'turn-in-system-prompt' | 'budget-impossible' | 'tokenizer-not-loaded'

/**
 * Why `compile` refused an assembly: a section whose value changes between
 * turns while `volatile: 'error'` is set (`turn-in-system-prompt`), or a token
 * budget that the sections without a priority exceed on their own
 * (`budget-impossible`), or an encoding that is neither loaded nor has a
registered loader (`tokenizer-not-loaded`: the message names the call to
make). `section` names the section at fault when there is one.
 */
export class CompileError extends Error {
  override readonly name = 'CompileError'
  readonly code: CompileErrorCode
  readonly section: string | undefined

  constructor(code: CompileErrorCode, message: string, options: { section?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.section = options.section
  }
}
