import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readTraffic, type TrafficFixture } from '../../test/fixtures/traffic/traffic.js'
import type { PersistentPromptStore } from '../store/index.js'
import { sqliteStore } from '../store/sqlite.js'
import { type MockProvider, startMockProvider } from './mock-provider.test-helper.js'
import { createRecorder, type Recorder } from './recorder.js'
import { type Relay, startRelay } from './relay/index.js'

// The requests the five published harnesses really sent (test/fixtures/traffic), replayed
// through the relay and the recorder into a real SQLite store, against a mock provider whose
// usage follows the providers' caching rules: the store holds each request's parts, marks
// and usage; a changed instruction text is a new version of its thread; no credential and
// no unmasked secret reaches a stored byte.

const CREDENTIAL = 'sk-ant-api03-CREDENTIALxCREDENTIALx1234567890'
const SECRET = 'ghp_SECRETINFILE0123456789abcdefghijABCD'

let dir: string
let mock: MockProvider
let store: PersistentPromptStore
let relay: Relay
const recorders = new Map<string, Recorder>()

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sysprompt-record-'))
  mock = await startMockProvider()
  store = sqliteStore({ path: join(dir, 'state.db') })
  relay = await startRelay({
    upstreams: { anthropic: mock.url, openai: mock.url, gemini: mock.url },
    // One recorder per harness, picked by the user agent the fixture sent.
    onExchange: (event) => {
      const agent = 'requestHeaders' in event ? (event.requestHeaders['x-replay-harness'] ?? '') : ''
      return recorders.get(agent)?.handle(event)
    },
  })
})

afterAll(async () => {
  await relay?.close()
  await store?.close()
  await mock?.close()
  await rm(dir, { recursive: true, force: true })
})

function recorderFor(harness: string): Recorder {
  const made = createRecorder({
    store,
    harness,
    key: 'a per-user key',
    mask: (text) => text.split(SECRET).join('[secret]'),
    count: (text) => Math.ceil(text.length / 4),
    tokenizer: 'estimate',
    now: () => new Date('2026-12-06T04:00:00Z'),
  })
  recorders.set(harness, made)
  return made
}

/** Sends a captured request through the relay, a credential of ours in place of the redacted one and a secret planted in its text. */
async function replay(harness: string, fixture: TrafficFixture, change = ''): Promise<number> {
  const headers = new Headers()
  for (const [name, value] of fixture.request.headers) {
    const lower = name.toLowerCase()
    if (['host', 'content-length', 'connection', 'accept-encoding'].includes(lower)) continue
    headers.set(name, value.includes('REDACTED') ? value.replace('REDACTED', CREDENTIAL) : value)
  }
  headers.set('x-replay-harness', harness)
  const body = fixture.request.body.replace('<ROOT>', `<ROOT> ${SECRET}${change}`)
  const response = await fetch(`${relay.url}${fixture.request.path}`, { method: 'POST', headers, body })
  await response.arrayBuffer()
  return response.status
}

describe('record: the five harnesses replayed through the relay into the store', async () => {
  const recordings = (await readTraffic()).filter((r) => r.http.length > 0)

  it('has a capture of each of the five harnesses', () => {
    expect(recordings.map((r) => r.name.split('@')[0]).sort()).toEqual([
      'claude',
      'codex',
      'gemini',
      'opencode',
      'pi',
    ])
  })

  for (const recording of recordings) {
    const harness = recording.name.split('@')[0]!
    it(`${recording.name}: calls with parts, marks and usage; a changed text is a new version of its thread`, async () => {
      const recorder = recorderFor(harness)
      for (const { fixture } of recording.http)
        expect(await replay(harness, fixture as TrafficFixture)).toBe(200)
      const turn = recording.http.at(-1)!.fixture as TrafficFixture
      expect(await replay(harness, turn)).toBe(200)
      expect(await replay(harness, turn, ' changed')).toBe(200)
      await relay.idle()
      const summary = recorder.summary()
      expect(summary.requests).toBe(recording.http.length + 2)
      expect(summary.recorded).toBe(summary.requests)
      // The turn, its repeat and its changed copy share one thread (a side request such as a title has its own).
      const turnSession = summary.sessions.at(-1)!
      const calls = await store.calls(turnSession)
      expect(calls.length).toBeGreaterThanOrEqual(3)
      const last = calls.slice(-3)
      for (const call of last) {
        expect(call.harness).toBe(harness)
        expect(call.harnessVersion).toBe(recording.name.split('@')[1])
        expect(call.parts.length).toBeGreaterThan(0)
        expect(call.usage?.inputTokens).toBeGreaterThan(0)
      }
      expect(last[0]!.version).toBe(last[1]!.version)
      expect(last[2]!.version).toBe(last[1]!.version + 1)
      expect(last[2]!.prefixHash).not.toBe(last[1]!.prefixHash)
      // Each call's outcome is stored beside it, for `sessions usage`.
      const outcomes = await store.usage(turnSession)
      expect(outcomes).toHaveLength(calls.length)
      expect(outcomes.at(-1)!.version).toBe(last[2]!.version)
      const history = await store.history(turnSession)
      expect(history.at(-1)!.reason).toMatch(/ changed$/)
      if (harness === 'claude') expect(last[1]!.marks.length).toBeGreaterThan(0)
    })
  }

  it('no credential and no unmasked secret in any stored byte (database, WAL, every file beside it)', async () => {
    await relay.idle()
    for (const name of await readdir(dir)) {
      const bytes = await readFile(join(dir, name))
      expect(bytes.includes(CREDENTIAL), name).toBe(false)
      expect(bytes.includes('CREDENTIALxCREDENTIAL'), name).toBe(false)
      expect(bytes.includes(SECRET), name).toBe(false)
    }
  })
})
