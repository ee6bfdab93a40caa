import { utf8Length } from '../../shared/hash.js'
import { bracketDepthExceeded, MAX_NESTING_DEPTH } from '../../shared/nesting-depth.js'
import type { ParseFailure } from './types.js'

/** The largest body read for a record (64 MiB, as the relay's decoding cap): a larger one is refused, not read. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024

/** A failure with its reason. */
export function failure(reason: string): ParseFailure {
  return { ok: false, reason }
}

const decoder = new TextDecoder('utf-8', { fatal: true })

/** The body as text: bounded, and UTF-8 (a byte sequence that is not is refused rather than guessed at). */
export function bodyText(body: Uint8Array | string): { ok: true; text: string } | ParseFailure {
  if (typeof body === 'string') {
    // A string's UTF-8 length is at least its length in code units: the cheap check first.
    if (body.length > MAX_BODY_BYTES || utf8Length(body) > MAX_BODY_BYTES) return tooLarge()
    return { ok: true, text: body }
  }
  if (body.byteLength > MAX_BODY_BYTES) return tooLarge()
  try {
    return { ok: true, text: decoder.decode(body) }
  } catch {
    return failure('the body is not UTF-8 text')
  }
}

function tooLarge(): ParseFailure {
  return failure(`the body is larger than ${MAX_BODY_BYTES} bytes, the most a record reads`)
}

/**
 * A JSON text parsed safely: its nesting is checked in one linear pass
 * before `JSON.parse` (which recurses once per level), and a syntax error
 * becomes a failure.
 */
export function parseJsonText(text: string): { ok: true; value: unknown } | ParseFailure {
  const at = bracketDepthExceeded(text, 'json')
  if (at !== -1) return failure(`the JSON nests deeper than ${MAX_NESTING_DEPTH} levels (at offset ${at})`)
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    return failure(`the body is not JSON: ${(error as Error).message}`)
  }
}

/** A body read as JSON: bounded, UTF-8, nesting checked. */
export function parseJsonBody(body: Uint8Array | string): { ok: true; value: unknown } | ParseFailure {
  const text = bodyText(body)
  return text.ok ? parseJsonText(text.text) : text
}
