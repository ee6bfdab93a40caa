import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callFixture, recordedVersion } from '../../test/conformance/recordings.js'
import { memoryStore } from '../compile/index.js'
import { appFor, client, makeProject } from './server.test-helper.js'

let root: string
let cleanup: () => Promise<void>
beforeAll(async () => {
  ;({ root, cleanup } = await makeProject('recordings'))
})
afterAll(() => cleanup())

describe('a recorded session over HTTP', () => {
  it('refuses PUT, recompile and usage reports with 409, changing nothing, and still serves reads', async () => {
    const store = memoryStore()
    const id = 'rec-claude-20250102T000000Z-a1b2c3'
    const v1 = recordedVersion(1, 'p1')
    await store.createSession(id, v1, { kind: 'recording' })
    await store.recordCall(callFixture(id, 1))
    const call = client(appFor(root, { store }))

    const writes = [
      ['PUT', `/api/sessions/${id}`, { context: {} }],
      ['POST', `/api/sessions/${id}/recompile`, { context: {}, reason: 'fragment-reload' }],
      [
        'POST',
        `/api/sessions/${id}/usage`,
        { provider: 'anthropic', model: 'claude-sonnet-4-5', usage: { input_tokens: 10 } },
      ],
    ] as const
    for (const [method, path, body] of writes) {
      const answer = await call(method, path, body)
      expect(answer.status, `${method} ${path}`).toBe(409)
      expect(answer.body.error.code).toBe('recording')
      expect(answer.body.error.message).toContain(`session ${id} is a recording`)
      expect(answer.body.error.message).toContain(`GET /api/sessions/${id}/history`)
    }
    expect(await store.history(id)).toEqual([v1])
    expect(await store.usage(id)).toEqual([])

    expect((await call('GET', `/api/sessions/${id}`)).body.compiled.text).toBe(v1.compiled.text)
    expect((await call('GET', `/api/sessions/${id}/history`)).status).toBe(200)
  })

  it('still writes a prompt session, before and after it is known', async () => {
    const call = client(appFor(root))
    expect((await call('PUT', '/api/sessions/agent-9', { context: {} })).status).toBe(200)
    expect((await call('PUT', '/api/sessions/agent-9', { context: {} })).status).toBe(200)
    const again = await call('POST', '/api/sessions/agent-9/recompile', {
      context: {},
      reason: 'fragment-reload',
    })
    expect(again.status).toBe(200)
  })
})
