/*
 * The answer a client gets when its upstream cannot be reached or fails
 * before answering: a 502 in its provider's error shape, so the harness
 * shows it as it shows the provider's own errors. The message names the
 * upstream host and the failure's code, never a credential.
 */
import type { UsageProvider } from '../../compile/types.js'

/**
 * The failure's code (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`,
 * `CERT_HAS_EXPIRED`…): the most specific one along `cause`, since undici
 * wraps a socket's own error in its generic `UND_ERR_SOCKET`.
 */
export function failureCode(error: unknown): string {
  let found = 'UNKNOWN'
  let current: unknown = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') {
      found = code
      if (code !== 'UND_ERR_SOCKET') return code
    }
    current = current.cause
  }
  return found
}

/** The sentence of the 502: which upstream failed and how. */
export function upstreamFailureMessage(host: string, error: unknown): string {
  return `sysprompt record could not reach the upstream ${host} (${failureCode(error)}); check the upstream URL, HTTPS_PROXY and NODE_EXTRA_CA_CERTS`
}

/** The 502 body in the provider's error shape, as JSON text. */
export function upstreamErrorBody(provider: UsageProvider, message: string): string {
  switch (provider) {
    case 'anthropic':
      return JSON.stringify({ type: 'error', error: { type: 'api_error', message } })
    case 'openai':
      return JSON.stringify({
        error: { message, type: 'upstream_error', param: null, code: 'upstream_unreachable' },
      })
    case 'gemini':
      return JSON.stringify({ error: { code: 502, message, status: 'UNAVAILABLE' } })
  }
}
