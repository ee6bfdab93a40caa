import { createHash, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { isLoopbackHost, loopbackRequestProblem } from '../shared/loopback.js'
import { ApiError } from './errors.js'

export { isLoopbackHost }

/** Request bodies over this many bytes are refused with 413 (SPEC §10). */
export const MAX_BODY_BYTES = 1024 * 1024
/** URLs (path and query) over this many characters are refused with 414. */
export const MAX_URL_CHARS = 8192

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * Requires `Authorization: Bearer <token>`. The comparison runs on
 * sha256 digests of equal length, in constant time, so neither the
 * token's content nor its length leaks through timing.
 */
export function requireToken(token: string): MiddlewareHandler {
  const expected = digest(token)
  return async (c, next) => {
    const header = c.req.header('authorization') ?? ''
    const match = /^Bearer ([^\s]+)$/.exec(header)
    if (match === null || !timingSafeEqual(digest(match[1]!), expected)) {
      c.header('WWW-Authenticate', 'Bearer')
      throw new ApiError(
        401,
        'unauthorized',
        'a bearer token is required: send Authorization: Bearer <token>',
      )
    }
    await next()
  }
}

/** The address the server is bound to, known once it listens. */
export interface BoundAddress {
  port: number | undefined
}

/**
 * Stops DNS rebinding on loopback without a token: the `Host` header must
 * name a loopback host and the bound port, and an `Origin`, when sent,
 * must be `http://` such a host and port. A page on another site that
 * resolves its name to 127.0.0.1 sends its own name, and is refused.
 */
export function checkLoopbackHost(bound: BoundAddress): MiddlewareHandler {
  return async (c, next) => {
    const problem = loopbackRequestProblem(c.req.header('host'), c.req.header('origin'), bound.port)
    if (problem === 'forbidden-host')
      throw new ApiError(403, 'forbidden-host', 'the Host header must name this loopback address and port')
    if (problem === 'forbidden-origin')
      throw new ApiError(403, 'forbidden-origin', 'requests from another origin are refused')
    await next()
  }
}

/** Refuses URLs over {@link MAX_URL_CHARS} with 414 before any routing. */
export const limitUrl: MiddlewareHandler = async (c, next) => {
  if (c.req.url.length > MAX_URL_CHARS) {
    throw new ApiError(414, 'uri-too-long', `the URL is over ${MAX_URL_CHARS} characters; send less`)
  }
  await next()
}

/**
 * Checks a request body before a route reads it: over 1 MiB is 413 (also
 * when it arrives without a length), a body that is not
 * `application/json` is 415, and malformed JSON is 400, each with the
 * API's error body. The parsed body stays cached on the request for the
 * route's validator.
 */
export function checkJsonBody(): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, 'too-large', `the request body is over ${MAX_BODY_BYTES} bytes; send less`)
    },
  })
  return async (c, next) => {
    const method = c.req.method
    if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return next()
    const type = c.req.header('content-type') ?? ''
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new ApiError(
        415,
        'unsupported-media-type',
        'the request body must be JSON: send Content-Type: application/json',
      )
    }
    return limit(c, async () => {
      const text = await c.req.text()
      try {
        JSON.parse(text)
      } catch (error) {
        throw new ApiError(
          400,
          'malformed-json',
          `the request body is not valid JSON (${(error as Error).message})`,
        )
      }
      await next()
    })
  }
}
