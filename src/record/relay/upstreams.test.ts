import { describe, expect, it } from 'vitest'
import { failureCode } from './upstream-errors.js'
import { DEFAULT_UPSTREAMS, resolveUpstreams, UpstreamUrlError, upstreamPath } from './upstreams.js'

describe('upstreams', () => {
  it('default to the public API hosts', () => {
    const upstreams = resolveUpstreams()
    expect(upstreams.anthropic).toEqual({
      origin: DEFAULT_UPSTREAMS.anthropic,
      prefix: '',
      host: 'api.anthropic.com',
    })
    expect(upstreamPath(upstreams.openai, '/v1/responses')).toBe('/v1/responses')
  })

  it('keep a gateway prefix, without a trailing slash', () => {
    const { anthropic } = resolveUpstreams({ anthropic: 'https://gw.example/team/anthropic/' })
    expect(anthropic.origin).toBe('https://gw.example')
    expect(upstreamPath(anthropic, '/v1/messages?beta=true')).toBe('/team/anthropic/v1/messages?beta=true')
  })

  it('do not repeat an API version the base URL already ends in', () => {
    const { openai, gemini } = resolveUpstreams({
      openai: 'https://gw.example/openai/v1',
      gemini: 'https://gw.example/v1beta/',
    })
    expect(upstreamPath(openai, '/v1/responses')).toBe('/openai/v1/responses')
    expect(upstreamPath(openai, '/v2/other')).toBe('/openai/v1/v2/other')
    expect(upstreamPath(gemini, '/v1beta/models/m:generateContent')).toBe('/v1beta/models/m:generateContent')
  })

  it('refuse a URL the relay cannot use, naming the provider and never the credentials', () => {
    expect(() => resolveUpstreams({ openai: 'gw.example' })).toThrow(UpstreamUrlError)
    expect(() => resolveUpstreams({ openai: 'ftp://gw.example' })).toThrow(/openai must be http: or https:/)
    expect(() => resolveUpstreams({ gemini: 'https://user:hunter2@gw.example' })).toThrow(
      /gw\.example.*no credentials/,
    )
    try {
      resolveUpstreams({ gemini: 'https://user:hunter2@gw.example' })
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2')
    }
  })
})

describe('failureCode', () => {
  const coded = (message: string, code: string, cause?: unknown) =>
    Object.assign(new Error(message, { cause }), { code })

  it('looks through undici socket wrappers for the cause', () => {
    expect(failureCode(coded('other side closed', 'UND_ERR_SOCKET', coded('read', 'ECONNRESET')))).toBe(
      'ECONNRESET',
    )
    expect(failureCode(coded('other side closed', 'UND_ERR_SOCKET'))).toBe('UND_ERR_SOCKET')
    expect(failureCode(new TypeError('fetch failed', { cause: coded('x', 'ENOTFOUND') }))).toBe('ENOTFOUND')
    expect(failureCode('not an error')).toBe('UNKNOWN')
  })
})
