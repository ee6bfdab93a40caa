import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { NEWEST_OBSERVED } from '../src/node/instructions/modes/profiles.js'
import {
  fixtureProblems,
  REDACTED,
  readTraffic,
  redactHeaders,
  redactPath,
  type TrafficFixture,
} from './fixtures/traffic/traffic.js'

// The request bodies captured once from the published harnesses
// (scripts/record-harness/capture-traffic.ts, run by hand): each file is a
// well-formed fixture, numbered without gaps, and carries no credential.
const recordings = await readTraffic()

/** A copy of `fixture` with `change` applied to it. */
function planted(fixture: TrafficFixture, change: (f: TrafficFixture) => void): TrafficFixture {
  const copy = structuredClone(fixture)
  change(copy)
  return copy
}

describe('traffic fixtures', () => {
  it('holds a recording of each modelled harness version', () => {
    const names = recordings.map((r) => r.name)
    for (const [mode, version] of Object.entries(NEWEST_OBSERVED))
      expect(names).toContain(`${mode}@${version}`)
    for (const r of recordings) expect(r.http.length, r.name).toBeGreaterThan(0)
  })

  it('has only well-formed files without credentials, numbered from 1 in each run', () => {
    for (const r of recordings) {
      const [harness, version] = r.name.split('@')
      for (const [transport, run] of [
        ['http', r.http],
        ['websocket', r.websocket],
      ] as const) {
        run.forEach(({ file, fixture }, i) => {
          expect(file.endsWith(`${i + 1}.json`), file).toBe(true)
          expect(fixtureProblems(fixture), file).toEqual([])
          expect(fixture, file).toMatchObject({ harness, version, transport })
        })
      }
    }
  })

  it('keeps a streamed answer as its events, and a WebSocket run for Codex', () => {
    const all = recordings.flatMap((r) => [...r.http, ...r.websocket]).map((f) => f.fixture as TrafficFixture)
    const streamed = all.filter((f) => f.response.streamed)
    expect(streamed.length).toBeGreaterThan(0)
    for (const f of streamed) expect(f.response.chunks.length).toBeGreaterThan(0)
    const codex = recordings.find((r) => r.name === `codex@${NEWEST_OBSERVED.codex}`)
    expect(codex?.websocket.length).toBeGreaterThan(0)
  })
})

describe('fixtureProblems', () => {
  const base = recordings[0]!.http[0]!.fixture as TrafficFixture

  it('accepts a captured fixture and the placeholder', () => {
    expect(fixtureProblems(base)).toEqual([])
    const redacted = planted(base, (f) => f.request.headers.push(['Authorization', `Bearer ${REDACTED}`]))
    expect(fixtureProblems(redacted)).toEqual([])
  })

  it('finds a credential planted in a header, the path or the body', () => {
    const cases: ((f: TrafficFixture) => void)[] = [
      (f) => f.request.headers.push(['x-api-key', 'mock']),
      (f) => f.request.headers.push(['authorization', 'Bearer mock']),
      (f) => f.request.headers.push(['authorization', 'mock']),
      (f) => f.request.headers.push(['X-Goog-Api-Key', 'anything']),
      (f) => f.request.headers.push(['Cookie', 'session=1']),
      (f) => (f.request.path = '/v1beta/models/m:generateContent?alt=sse&key=abc'),
      (f) => (f.request.body = `${f.request.body} Bearer eyJhbGciOi.x`),
      (f) => (f.request.body = `{"note":"sk-ant-api03-abcdefgh"}`),
      (f) => (f.response.chunks = ['{"key":"AIzaSyA1234567890abcdefghijklmnopqrstu"}']),
      (f) => {
        f.request.bodyEncoding = 'base64'
        f.request.body = Buffer.from('token sk-proj-abcdef123').toString('base64')
      },
      (f) => (f.request.body = '/tmp/sysprompt-traffic-aB3dE9/nested-x/tree'),
    ]
    for (const change of cases) expect(fixtureProblems(planted(base, change)), String(change)).not.toEqual([])
  })

  it('finds any sk- key planted anywhere in the body', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{6,40}$/), fc.nat(), (key, at) => {
        const body = base.request.body
        const cut = at % (body.length + 1)
        const f = planted(base, (g) => (g.request.body = `${body.slice(0, cut)} sk-${key}${body.slice(cut)}`))
        return fixtureProblems(f).length > 0
      }),
      { numRuns: 50 },
    )
  })

  it('refuses what is not a fixture', () => {
    expect(fixtureProblems(null)).not.toEqual([])
    expect(
      fixtureProblems(planted(base, (f) => ((f as { transport: string }).transport = 'tcp'))),
    ).not.toEqual([])
    expect(fixtureProblems(planted(base, (f) => delete (f as Partial<TrafficFixture>).response))).not.toEqual(
      [],
    )
    const ws = planted(base, (f) => (f.transport = 'websocket'))
    expect(fixtureProblems(ws)).toContain('a websocket message without its connection')
  })
})

describe('redaction', () => {
  it('replaces every credential header, whatever its case, and leaves the others', () => {
    const headers = redactHeaders([
      ['Authorization', 'Bearer mock'],
      ['Proxy-Authorization', 'Basic bW9jazptb2Nr'],
      ['x-api-key', 'mock'],
      ['X-Goog-Api-Key', 'mock'],
      ['cookie', 'a=1'],
      ['user-agent', 'claude-cli/2.1.332'],
    ])
    expect(headers).toEqual([
      ['Authorization', `Bearer ${REDACTED}`],
      ['Proxy-Authorization', `Basic ${REDACTED}`],
      ['x-api-key', REDACTED],
      ['X-Goog-Api-Key', REDACTED],
      ['cookie', REDACTED],
      ['user-agent', 'claude-cli/2.1.332'],
    ])
  })

  it('replaces a key= query value only', () => {
    expect(redactPath('/v1beta/models/m:streamGenerateContent?alt=sse&key=secret')).toBe(
      `/v1beta/models/m:streamGenerateContent?alt=sse&key=${REDACTED}`,
    )
    expect(redactPath('/v1/messages?beta=true')).toBe('/v1/messages?beta=true')
    expect(redactPath('/v1/x?monkey=1')).toBe('/v1/x?monkey=1')
  })
})
