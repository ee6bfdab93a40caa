/**
 * Loopback checks that the HTTP API and the recording relay share: a
 * server on 127.0.0.1 without a token is reachable by any web page through
 * DNS rebinding (a name of the attacker's that resolves to 127.0.0.1), and
 * such a page sends its own name as `Host` and its origin as `Origin`.
 */

/** Whether `host` (a bind address or a Host header's name) is loopback: `127.0.0.0/8`, `::1`, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (name === 'localhost' || name === '::1') return true
  const octets = name.split('.')
  return (
    octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
  )
}

function hostOf(value: string): { name: string; port: string | undefined } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value)
  return m === null ? undefined : { name: m[1]!.toLowerCase(), port: m[2] }
}

/**
 * Why a request may not reach a loopback server bound to `port`, or
 * `undefined` when it may: its `Host` must name a loopback host and that
 * port, and an `Origin`, when sent, must be `http://` such a host and port.
 */
export function loopbackRequestProblem(
  host: string | undefined,
  origin: string | undefined,
  port: number | undefined,
): 'forbidden-host' | 'forbidden-origin' | undefined {
  const ok = (value: string | undefined) => {
    if (value === undefined) return false
    const parsed = hostOf(value)
    if (parsed === undefined || !isLoopbackHost(parsed.name)) return false
    return port === undefined || parsed.port === String(port)
  }
  if (!ok(host)) return 'forbidden-host'
  if (origin !== undefined && !(origin.startsWith('http://') && ok(origin.slice('http://'.length))))
    return 'forbidden-origin'
  return undefined
}
