import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../test/property-runs.test-helper.js'
import { endpointOf, routeOf } from './endpoints.js'
import {
  CREDENTIAL_HEADERS,
  type HeaderPair,
  HOP_BY_HOP,
  recordedHeaders,
  recordedPath,
  withoutHopByHop,
} from './headers.js'

const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/)
/** A header name in any letter case: a hop-by-hop or credential name, or a random token. */
const headerName = fc
  .tuple(
    fc.oneof(fc.constantFrom(...HOP_BY_HOP, ...CREDENTIAL_HEADERS), token),
    fc.array(fc.boolean(), { maxLength: 20 }),
  )
  .map(([name, upper]) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''))
const pairs = fc.array(fc.tuple(headerName, fc.string({ maxLength: 20 })), { maxLength: 12 })

describe('header filtering (property)', () => {
  it('forwards every header but hop-by-hop ones and those Connection names, in order', () => {
    fc.assert(
      fc.property(pairs, fc.array(token, { maxLength: 3 }), (list, named) => {
        const input: HeaderPair[] = [...list, ['Connection', named.join(', ')]]
        const out = withoutHopByHop(input)
        // Every Connection header names more (a random one among `list` too).
        const listed = input
          .filter(([name]) => name.toLowerCase() === 'connection')
          .flatMap(([, value]) => value.split(',').map((t) => t.trim().toLowerCase()))
        const dropped = (name: string) =>
          HOP_BY_HOP.has(name.toLowerCase()) || listed.includes(name.toLowerCase())
        expect(out).toEqual(input.filter(([name]) => !dropped(name)))
      }),
      { numRuns: propertyRuns(500) },
    )
  })

  it('records no credential header, and every other header once under its lower-case name', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const recorded = recordedHeaders(list)
        for (const name of Object.keys(recorded)) expect(CREDENTIAL_HEADERS.has(name)).toBe(false)
        const expected = new Set(list.map(([n]) => n.toLowerCase()).filter((n) => !CREDENTIAL_HEADERS.has(n)))
        expect(new Set(Object.keys(recorded))).toEqual(expected)
      }),
      { numRuns: propertyRuns(500) },
    )
  })
})

const param = fc.tuple(
  fc.constantFrom('key', 'alt', 'k', 'keys', '%6Bey', 'x'),
  fc.stringMatching(/^[A-Za-z0-9%_.-]{0,10}$/),
)

describe('recorded paths (property)', () => {
  it('drop every key= parameter and keep the others as sent, in order', () => {
    fc.assert(
      fc.property(fc.array(param, { maxLength: 6 }), (params) => {
        const path = '/v1beta/models/m:generateContent'
        const query = params.map(([n, v]) => `${n}=${v}`)
        const recorded = recordedPath(query.length === 0 ? path : `${path}?${query.join('&')}`)
        const kept = query.filter((_, i) => !['key', '%6Bey'].includes(params[i]![0]))
        expect(recorded).toBe(kept.length === 0 ? path : `${path}?${kept.join('&')}`)
      }),
      { numRuns: propertyRuns(500) },
    )
  })
})

const segment = fc.stringMatching(/^[a-zA-Z0-9._-]{1,16}$/)

describe('provider routing', () => {
  it('names the recorded endpoints by path', () => {
    expect(endpointOf('/v1/messages')?.endpoint).toBe('anthropic.messages')
    expect(endpointOf('/v1/messages/count_tokens')?.endpoint).toBe('anthropic.count_tokens')
    expect(endpointOf('/v1/responses')?.endpoint).toBe('openai.responses')
    expect(endpointOf('/v1/chat/completions')?.endpoint).toBe('openai.chat.completions')
    expect(endpointOf('/v1/models/gemini-2.5-flash:generateContent')?.endpoint).toBe('gemini.generateContent')
    expect(endpointOf('/v1beta/models/gemini-2.5-flash:streamGenerateContent')?.endpoint).toBe(
      'gemini.streamGenerateContent',
    )
    expect(endpointOf('/v1/messages/batches')).toBeUndefined()
    expect(endpointOf('/v1beta/models/a/b:generateContent')).toBeUndefined()
  })

  it('classifies any Gemini model path by its method, whatever the query (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('/v1beta', '/v1'),
        segment,
        fc.constantFrom('generateContent', 'streamGenerateContent'),
        fc.string({ maxLength: 20 }),
        (version, model, method, query) => {
          expect(routeOf(`${version}/models/${model}:${method}?${query}`, {})).toEqual({
            provider: 'gemini',
            endpoint: `gemini.${method}`,
          })
        },
      ),
      { numRuns: propertyRuns(300) },
    )
  })

  it('sends unrecorded paths to their provider by headers, then path, else OpenAI (property)', () => {
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.record({
          'anthropic-version': fc.boolean(),
          'x-api-key': fc.boolean(),
          'x-goog-api-key': fc.boolean(),
        }),
        (segments, present) => {
          const path = `/x/${segments.join('/')}`
          const headers = Object.fromEntries(
            Object.entries(present)
              .filter(([, on]) => on)
              .map(([n]) => [n, 'v']),
          )
          const route = routeOf(path, headers)
          expect(route.endpoint).toBeUndefined()
          const expected =
            present['anthropic-version'] || present['x-api-key']
              ? 'anthropic'
              : present['x-goog-api-key']
                ? 'gemini'
                : 'openai'
          expect(route.provider).toBe(expected)
        },
      ),
      { numRuns: propertyRuns(300) },
    )
    expect(routeOf('/v1beta/models', {}).provider).toBe('gemini')
    expect(routeOf('/v1/models?key=abc', {}).provider).toBe('gemini')
    expect(routeOf('/v1/models', {}).provider).toBe('openai')
  })
})
