/** Stable codes of registry errors (SPEC §4). */
export type RegistryErrorCode =
  | 'duplicate-section'
  | 'duplicate-variable'
  | 'duplicate-resolver'
  | 'invalid-variable-name'
  | 'tool-order-invalid'
  | 'tool-order-unknown'
  | 'reserved-tool-name'
  | 'empty-protection'
  | 'protected-shadow'
  | 'middleware-result'
  | 'next-called-twice'
  | 'invalid-registration'

/** A registration or assembly the registry refuses; the message says what to do instead. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError'

  constructor(
    readonly code: RegistryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${message} [${code}]`, options)
  }
}
