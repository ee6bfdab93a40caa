/*
 * Header and path hygiene of the relay: what is forwarded (everything but
 * hop-by-hop headers, RFC 9110 §7.6.1) and what is recorded (everything but
 * credentials). Pure: no Node imports.
 */

/** A header as a name and one value, in the order received (a repeated header is several pairs). */
export type HeaderPair = readonly [name: string, value: string]

/** Headers that belong to one connection, never forwarded (plus those the `Connection` header names). */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/** Headers that carry credentials: forwarded, never recorded. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
  'set-cookie',
])

/** Pairs from Node's `rawHeaders` (`[name, value, name, value, …]`). */
export function pairsOfRaw(raw: readonly string[]): HeaderPair[] {
  const pairs: HeaderPair[] = []
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!])
  return pairs
}

/** Pairs from a header object whose repeated headers are arrays (undici's response headers). */
export function pairsOfObject(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): HeaderPair[] {
  const pairs: HeaderPair[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, one])
  }
  return pairs
}

/**
 * The headers to forward: without hop-by-hop headers, those the
 * `Connection` header names, and any in `alsoDrop` (lower-case names).
 */
export function withoutHopByHop(
  pairs: readonly HeaderPair[],
  alsoDrop: ReadonlySet<string> = new Set(),
): HeaderPair[] {
  const named = new Set<string>()
  for (const [name, value] of pairs) {
    if (name.toLowerCase() !== 'connection') continue
    for (const token of value.split(',')) named.add(token.trim().toLowerCase())
  }
  return pairs.filter(([name]) => {
    const lower = name.toLowerCase()
    return !HOP_BY_HOP.has(lower) && !named.has(lower) && !alsoDrop.has(lower)
  })
}

/** Flattens pairs for Node's `writeHead` and undici's `headers` (`[name, value, …]`). */
export function flatten(pairs: readonly HeaderPair[]): string[] {
  return pairs.flat()
}

/**
 * The headers as recorded: lower-case names, repeated headers joined by
 * `, `, credentials left out.
 */
export function recordedHeaders(pairs: readonly HeaderPair[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase()
    if (CREDENTIAL_HEADERS.has(lower)) continue
    out[lower] = Object.hasOwn(out, lower) ? `${out[lower]}, ${value}` : value
  }
  return out
}

function paramName(pair: string): string {
  const eq = pair.indexOf('=')
  const raw = eq === -1 ? pair : pair.slice(0, eq)
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '))
  } catch {
    return raw
  }
}

/** A path and query as recorded: every `key` query parameter (Gemini's API key) removed, the rest as sent. */
export function recordedPath(pathAndQuery: string): string {
  const queryAt = pathAndQuery.indexOf('?')
  if (queryAt === -1) return pathAndQuery
  const kept = pathAndQuery
    .slice(queryAt + 1)
    .split('&')
    .filter((pair) => paramName(pair) !== 'key')
  const path = pathAndQuery.slice(0, queryAt)
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`
}
