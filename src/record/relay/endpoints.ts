/*
 * Which provider API a relayed request is for: the recorded endpoints by
 * their path (SPEC §11), and for every other path the provider it belongs to
 * by its path and headers, so it is forwarded to that provider's upstream.
 * Pure: no Node imports.
 */
import type { TrafficEndpoint } from '../../compile/call-record.js'
import type { UsageProvider } from '../../compile/types.js'

/** A request's provider and, when it is one the recorder reads, its endpoint. */
export interface RouteMatch {
  provider: UsageProvider
  endpoint?: TrafficEndpoint
}

const EXACT: ReadonlyMap<string, RouteMatch> = new Map<string, RouteMatch>([
  ['/v1/messages', { provider: 'anthropic', endpoint: 'anthropic.messages' }],
  ['/v1/messages/count_tokens', { provider: 'anthropic', endpoint: 'anthropic.count_tokens' }],
  ['/v1/responses', { provider: 'openai', endpoint: 'openai.responses' }],
  ['/v1/chat/completions', { provider: 'openai', endpoint: 'openai.chat.completions' }],
])

// `/v1beta/models/gemini-2.5-pro:streamGenerateContent`; a model name holds no `/` or `:`.
const GEMINI = /^\/v1(?:beta)?\/models\/[^/:]+:(generateContent|streamGenerateContent)$/

/** The recorded endpoint a path names (the path without its query), or `undefined`. */
export function endpointOf(pathname: string): RouteMatch | undefined {
  const exact = EXACT.get(pathname)
  if (exact !== undefined) return exact
  const gemini = GEMINI.exec(pathname)
  if (gemini === null) return undefined
  return {
    provider: 'gemini',
    endpoint: gemini[1] === 'generateContent' ? 'gemini.generateContent' : 'gemini.streamGenerateContent',
  }
}

/**
 * The provider of a request: its recorded endpoint when the path is one,
 * else by headers and path: `anthropic-version` or `x-api-key` is Anthropic;
 * `x-goog-api-key`, a `key=` query parameter or a `/v1beta/` path is Gemini;
 * anything else OpenAI. `headers` are lower-cased names (Node's
 * `IncomingMessage.headers`).
 */
export function routeOf(
  pathAndQuery: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): RouteMatch {
  const queryAt = pathAndQuery.indexOf('?')
  const pathname = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt)
  const recorded = endpointOf(pathname)
  if (recorded !== undefined) return recorded
  if (headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined)
    return { provider: 'anthropic' }
  const query = queryAt === -1 ? '' : pathAndQuery.slice(queryAt + 1)
  const keyParam = query.split('&').some((pair) => pair.startsWith('key='))
  if (headers['x-goog-api-key'] !== undefined || keyParam || pathname.startsWith('/v1beta/'))
    return { provider: 'gemini' }
  return { provider: 'openai' }
}
