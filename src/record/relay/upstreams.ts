/*
 * Where the relay forwards each provider's requests: one base URL per
 * provider, the public API hosts by default. A base URL with a path (a
 * company gateway, `https://gw.example/anthropic`) keeps it: the request's
 * path is appended to it.
 */
import type { UsageProvider } from '../../compile/types.js'

/** One base URL per provider (`http:` or `https:`, with an optional path prefix). */
export type UpstreamOptions = Partial<Record<UsageProvider, string>>

/** The public API host of each provider. */
export const DEFAULT_UPSTREAMS: Readonly<Record<UsageProvider, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
}

/** A provider's upstream, parsed once. */
export interface Upstream {
  /** `https://host:port`, what undici dispatches to. */
  origin: string
  /** The path prefix without a trailing slash (`''` for none). */
  prefix: string
  /** The host (and port) alone, for messages: never the user info of the URL. */
  host: string
}

/** Thrown for an upstream base URL the relay cannot use. */
export class UpstreamUrlError extends Error {
  readonly code = 'UPSTREAM_URL'
}

function parseUpstream(provider: UsageProvider, base: string): Upstream {
  let url: URL
  try {
    url = new URL(base)
  } catch (cause) {
    throw new UpstreamUrlError(
      `upstream for ${provider} is not a URL; give one like https://gw.example/${provider}`,
      {
        cause,
      },
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UpstreamUrlError(`upstream for ${provider} must be http: or https:, not ${url.protocol}`)
  if (url.search !== '' || url.hash !== '')
    throw new UpstreamUrlError(`upstream for ${provider} (${url.host}) must have no query or fragment`)
  if (url.username !== '' || url.password !== '')
    throw new UpstreamUrlError(
      `upstream for ${provider} (${url.host}) must carry no credentials: the client sends its own`,
    )
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, ''), host: url.host }
}

/** Every provider's upstream: the given base URLs over the public hosts. Throws `UpstreamUrlError` on a bad one. */
export function resolveUpstreams(options: UpstreamOptions = {}): Record<UsageProvider, Upstream> {
  const pick = (provider: UsageProvider) =>
    parseUpstream(provider, options[provider] ?? DEFAULT_UPSTREAMS[provider])
  return { anthropic: pick('anthropic'), openai: pick('openai'), gemini: pick('gemini') }
}

const VERSION_SEGMENT = /^v\d+(?:alpha|beta)?\d*$/

/**
 * The path to request upstream: the prefix, then the client's path and
 * query as sent. A prefix that already ends in the API version the path
 * starts with (`https://api.openai.com/v1`, as OpenAI base URLs are usually
 * written, and a client path `/v1/responses`) is not repeated.
 */
export function upstreamPath(upstream: Upstream, pathAndQuery: string): string {
  const path = pathAndQuery.startsWith('/') ? pathAndQuery : `/${pathAndQuery}`
  const last = upstream.prefix.slice(upstream.prefix.lastIndexOf('/') + 1)
  const first = /^\/([^/?]+)/.exec(path)?.[1]
  if (first !== undefined && first === last && VERSION_SEGMENT.test(last))
    return `${upstream.prefix.slice(0, -last.length - 1)}${path}`
  return `${upstream.prefix}${path}`
}
