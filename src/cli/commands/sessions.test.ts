import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { versionFixture } from '../../../test/conformance/prompt-store.js'
import { callFixture, recordedVersion } from '../../../test/conformance/recordings.js'
import { createSessionPrompts } from '../../compile/sessions.js'
import { sqliteStore } from '../../store/index.js'
import { run } from '../run.js'

const root = mkdtempSync(join(tmpdir(), 'sysprompt-sessions-cli-'))
const path = join(root, 'ledger.db')
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = ''
  let stderr = ''
  const code = await run(args, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
    cwd: root,
  })
  return { code, stdout, stderr }
}

const v1 = versionFixture(1, ['You are a careful agent.', 'Rules: one.'])
const v2 = versionFixture(2, ['You are a careful agent.', 'Rules: two.'], 'fragment-reload')

beforeAll(async () => {
  const store = sqliteStore({ path })
  await store.createSession('chat-7', v1)
  await store.appendVersion('chat-7', v2, v1.hash)
  const sessions = createSessionPrompts({ build: async () => v2.compiled, store })
  await sessions.recordUsage(
    'chat-7',
    { input_tokens: 10, cache_read_input_tokens: 0 },
    { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  )
  await store.close()
})

describe('sysprompt sessions', () => {
  const store = ['--store', 'sqlite:ledger.db']

  it('lists the stored sessions, as text and as JSON', async () => {
    const text = await cli(['sessions', 'list', ...store])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/chat-7\s+2\s+\d+\s+fragment-reload/)
    const data = await cli(['sessions', 'list', ...store, '--json'])
    expect(JSON.parse(data.stdout)).toEqual([
      expect.objectContaining({ id: 'chat-7', versions: 2, hash: v2.hash }),
    ])
  })

  it('shows the current prompt byte for byte', async () => {
    const shown = await cli(['sessions', 'show', 'chat-7', ...store])
    expect(shown.stdout.endsWith(`${v2.compiled.text}\n`)).toBe(true)
    const data = await cli(['sessions', 'show', 'chat-7', ...store, '--json'])
    expect(JSON.parse(data.stdout).current.compiled.text).toBe(v2.compiled.text)
  })

  it('lists the history with reasons and the first changed section', async () => {
    const data = await cli(['sessions', 'history', 'chat-7', ...store, '--json'])
    expect(
      JSON.parse(data.stdout).map((v: { reason: string; firstChangedSection: string | null }) => [
        v.reason,
        v.firstChangedSection,
      ]),
    ).toEqual([
      ['construct', null],
      ['fragment-reload', 's1'],
    ])
    expect((await cli(['sessions', 'history', 'chat-7', ...store])).stdout).toMatch(
      /2\s+\S+\s+fragment-reload.*s1/,
    )
  })

  it('diffs the last two versions by default, or the two named', async () => {
    const last = await cli(['sessions', 'diff', 'chat-7', ...store, '--json'])
    expect(JSON.parse(last.stdout)).toMatchObject({
      from: 1,
      to: 2,
      diff: { section: 's1', changed: ['s1'] },
    })
    const same = await cli(['sessions', 'diff', 'chat-7', '2', '2', ...store])
    expect(same.stdout).toBe('versions 2 and 2 of chat-7 are identical\n')
    const bad = await cli(['sessions', 'diff', 'chat-7', '1', '9', ...store])
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('TO "9" is not a version of this session'),
    })
  })

  it('reports usage with its outcome per call', async () => {
    const data = await cli(['sessions', 'usage', 'chat-7', ...store, '--json'])
    const parsed = JSON.parse(data.stdout)
    expect(parsed.outcomes).toEqual([
      expect.objectContaining({ version: 2, outcome: 'small', inputTokens: 10 }),
    ])
    expect(parsed.report.calls).toBe(1)
    expect((await cli(['sessions', 'usage', 'chat-7', ...store])).stdout).toMatch(/Calls 1, input 10 tokens/)
  })

  it('says when a session does not exist, with exit code 1', async () => {
    const missing = await cli(['sessions', 'show', 'nope', ...store])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(
      /^sysprompt: no session "nope" in .*ledger\.db; run `sysprompt sessions list`/,
    )
  })

  it('uses SQLite in the user state directory by default, not the repository', async () => {
    const state = join(root, 'state')
    const listed = await cli(['sessions', 'list'], { XDG_STATE_HOME: state })
    expect(listed).toMatchObject({ code: 0, stdout: 'no sessions stored\n' })
    const again = sqliteStore({ path: join(state, 'sysprompt', 'state.db') })
    expect(await again.listSessions()).toEqual([])
    await again.close()
  })

  it('deletes a session with its calls, and says when there was none', async () => {
    const seeded = sqliteStore({ path })
    await seeded.createSession('rec-gone', recordedVersion(1, 'p1'), { kind: 'recording' })
    await seeded.recordCall(callFixture('rec-gone', 1))
    await seeded.close()
    const deleted = await cli(['sessions', 'delete', 'rec-gone', ...store])
    expect(deleted).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^deleted session rec-gone from .*ledger\.db/),
    })
    const after = sqliteStore({ path })
    expect(await after.getSession('rec-gone')).toBeUndefined()
    expect(await after.calls('rec-gone')).toEqual([])
    expect(await after.getSession('chat-7')).toBeDefined()
    await after.close()
    const again = await cli(['sessions', 'delete', 'rec-gone', ...store])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/no session "rec-gone"/)
  })

  it('rejects a --store value that names no store as a usage error', async () => {
    const bad = await cli(['sessions', 'list', '--store', 'redis://x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--store: "redis:\/\/x" names no store; pass sqlite:PATH or postgres:/)
  })
})
