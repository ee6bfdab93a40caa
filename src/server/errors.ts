import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/**
 * An error the API answers with: `{ error: { code, message, details? } }`
 * and `status`. Route code throws it; the app's error handler writes it.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'

  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }
}

/** The body every error response has. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown }
}

/** Writes `error` as the API's error response. */
export function errorResponse(c: Context, error: ApiError): Response {
  const body: ApiErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  }
  return c.json(body, error.status)
}

/** The JSON text of an error body, for places outside Hono (the raw socket on a parse error). */
export function errorJson(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } } satisfies ApiErrorBody)
}
