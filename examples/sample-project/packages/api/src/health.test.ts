import assert from 'node:assert/strict'
import { test } from 'node:test'
import { health } from './health.js'

test('health says the process is up', () => {
  assert.deepEqual(health(), { ok: true })
})
