import { spawn } from 'node:child_process'
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockProvider, startMockProvider } from '../../src/record/mock-provider.test-helper.js'
import { sqliteStore } from '../../src/store/sqlite.js'
import { TREES, withRoot } from '../fixtures/harness/trees.js'
import { bin, cli, env, sandbox, useSandbox, write } from './cli.test-helper.js'

// `sysprompt record -- COMMAND` on stub executables named after each harness
// (record-stub.test-helper.mjs): each checks what it was given, sends the
// request its harness really sent to where it was pointed, and exits with a
// code of the test's choosing; the mock provider behind the proxy answers.

useSandbox()
const STUB = join(import.meta.dirname, 'record-stub.test-helper.mjs')
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'traffic')
const FIXTURE: Record<string, string> = {
  claude: 'claude@2.1.332/1.json',
  codex: 'codex@0.171.0/1.json',
  gemini: 'gemini@0.61.0/1.json',
  opencode: 'opencode@1.18.33/2.json',
}
let mock: MockProvider
let stubs: string

beforeAll(async () => {
  mock = await startMockProvider()
  stubs = join(sandbox.base, 'stubs')
  await mkdir(stubs, { recursive: true })
  for (const name of ['claude', 'codex', 'gemini', 'opencode', 'pi']) {
    const path = join(stubs, name)
    await writeFile(path, `#!/bin/sh\nexec "${process.execPath}" "${STUB}" "$0" "$@"\n`)
    await chmod(path, 0o755)
  }
})
afterAll(() => mock?.close())

async function build(base: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    if (rel.endsWith('/')) await mkdir(join(base, rel), { recursive: true })
    else await write(join(base, rel), text)
  }
}

interface Seen {
  name: string
  args: string[]
  base?: string
  status: number
  env: Record<string, string>
}

async function record(
  harness: string,
  extra: Record<string, string> = {},
  args: string[] = [],
  options: string[] = [],
) {
  const out = join(sandbox.base, `${harness}-${Math.random().toString(16).slice(2)}.json`)
  const store = join(sandbox.base, `${harness}.db`)
  const result = await cli(
    [
      'record',
      ...options,
      '--store',
      `sqlite:${store}`,
      '--upstream',
      mock.url,
      '--',
      join(stubs, harness),
      ...args,
    ],
    {
      env: env({
        STUB_OUT: out,
        STUB_FIXTURE: join(FIXTURES, FIXTURE[harness] ?? FIXTURE.claude!),
        STUB_EXIT: '3',
        OPENAI_API_KEY: 'sk-env-key',
        GEMINI_API_KEY: 'env-key',
        NO_PROXY: 'corp.example',
        ...extra,
      }),
    },
  )
  const seen = JSON.parse(await readFile(out, 'utf8').catch(() => '{}')) as Seen
  return { result, seen, store }
}

describe('sysprompt record -- COMMAND', () => {
  it.each(['claude', 'codex', 'gemini', 'opencode'])(
    '%s: pointed at the proxy, recorded in the store, its exit code kept',
    async (harness) => {
      const { result, seen, store } = await record(harness, {}, harness === 'codex' ? ['exec', 'hi'] : [])
      expect(result.code, result.stderr).toBe(3)
      expect(seen.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
      expect(seen.status).toBe(200)
      expect(seen.env.NO_PROXY).toBe('corp.example,127.0.0.1,localhost')
      if (harness === 'codex') {
        // The provider flags stand right after the binary; the user's arguments follow unchanged.
        expect(seen.args[0]).toBe('-c')
        expect(seen.args.slice(-2)).toEqual(['exec', 'hi'])
      } else expect(seen.args).toEqual([])
      expect(result.stderr).toMatch(/sysprompt record: 1 requests \(1 recorded\)/)
      const opened = sqliteStore({ path: store })
      try {
        const session = /sessions: (rec-\S+)/.exec(result.stderr)?.[1]
        expect(session).toMatch(new RegExp(`^rec-${harness}-\\d{8}T\\d{6}Z-[0-9a-f]{6}$`))
        const calls = await opened.calls(session!)
        expect(calls).toHaveLength(1)
        expect(calls[0]!.harness).toBe(harness)
        expect(calls[0]!.usage?.inputTokens).toBeGreaterThan(0)
      } finally {
        await opened.close()
      }
      // The ledger commands read a recording as they read any session.
      const session = /sessions: (rec-\S+)/.exec(result.stderr)![1]!
      const history = await cli(['sessions', 'history', session, '--store', `sqlite:${store}`], {
        env: env(),
      })
      expect(history.code, history.stderr).toBe(0)
      expect(history.stdout).toContain('recorded')
      const usage = await cli(['sessions', 'usage', session, '--json', '--store', `sqlite:${store}`], {
        env: env(),
      })
      expect(usage.code, usage.stderr).toBe(0)
      expect(JSON.parse(usage.stdout).outcomes).toHaveLength(1)
      const bytes = await readFile(store)
      expect(bytes.includes('CREDENTIALxCREDENTIAL')).toBe(false)
    },
  )

  it('--check-drift: what Claude Code sent matches the view here; a changed CLAUDE.md is named with its line and exits 1', async () => {
    const tree = TREES.find((t) => t.name === 'nested')!
    const root = join(sandbox.base, 'drift-tree')
    const home = join(sandbox.base, 'drift-home')
    await build(root, tree.files)
    await build(home, withRoot(tree.home, root))
    const run = () =>
      cli(
        [
          'record',
          '--check-drift',
          '--store',
          `sqlite:${join(sandbox.base, 'drift.db')}`,
          '--upstream',
          mock.url,
          '--',
          join(stubs, 'claude'),
        ],
        {
          cwd: join(root, 'pkg'),
          env: env({
            HOME: home,
            STUB_OUT: join(sandbox.base, 'drift-stub.json'),
            STUB_FIXTURE: join(FIXTURES, FIXTURE.claude!),
            STUB_ROOT: root,
            STUB_HOME: home,
            STUB_EXIT: '0',
          }),
        },
      )
    const same = await run()
    expect(same.code, same.stderr).toBe(0)
    expect(same.stderr).toContain('drift: claude 2.1.332 in')
    expect(same.stderr).toContain("matches sysprompt's view")
    await writeFile(
      join(root, 'CLAUDE.md'),
      '# Root claude\n\nSee the README.\nA line added after the capture.\n',
    )
    const changed = await run()
    expect(changed.code).toBe(1)
    expect(changed.stderr).toContain(`differs at ${join(root, 'CLAUDE.md')}:4`)
  })

  it('--diagnose says at start what it adds to requests, and the traffic goes through', async () => {
    const { result, seen } = await record('claude', {}, [], ['--diagnose'])
    expect(result.code, result.stderr).toBe(3)
    expect(seen.status).toBe(200)
    expect(result.stderr).toContain('--diagnose: Anthropic requests get the cache-diagnosis-2026-04-07 beta')
    expect(result.stderr).toMatch(/1 requests \(1 recorded\)/)
  })

  it('past --max-size recording stops with one warning, and the traffic still flows', async () => {
    const { result, seen } = await record('claude', {}, [], ['--max-size', '1'])
    expect(result.code).toBe(3)
    expect(seen.status).toBe(200)
    expect(result.stderr).toContain('recording stopped')
    expect(result.stderr).toMatch(/sysprompt record: 0 requests/)
  })

  it('--keep-bodies keeps the messages (the user prompt too) in the state directory, not in the store', async () => {
    const state = join(sandbox.base, 'bodies-state')
    const { result, store } = await record('claude', { XDG_STATE_HOME: state }, [], ['--keep-bodies'])
    expect(result.code, result.stderr).toBe(3)
    const dir = join(state, 'sysprompt', 'bodies')
    const files = await readdir(dir)
    expect(files.length).toBeGreaterThan(0)
    const texts = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))
    // The captured turn's own prompt was "hello": kept as a body, never in the ledger.
    expect(texts.some((t) => t.includes('hello'))).toBe(true)
    expect((await readFile(store)).includes('"text":"hello"')).toBe(false)
  })

  it('--prune --older-than removes old calls and says how many', async () => {
    const { store } = await record('gemini')
    const kept = await cli(['record', '--prune', '--older-than', '30d', '--store', `sqlite:${store}`], {
      env: env(),
    })
    expect(kept.code, kept.stderr).toBe(0)
    expect(kept.stdout).toContain('removed 0 recorded calls older than 30d')
    const bad = await cli(['record', '--prune', '--older-than', 'soon', '--store', `sqlite:${store}`], {
      env: env(),
    })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--older-than soon')
  })

  it('a command that dies of a signal gives 128 + its number', async () => {
    const { result } = await record('claude', { STUB_SIGNAL: 'SIGTERM' })
    expect(result.code).toBe(143)
  })

  it('Claude Code on Bedrock is refused in one line, and nothing runs', async () => {
    const { result, seen } = await record('claude', { CLAUDE_CODE_USE_BEDROCK: '1' })
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain('Bedrock')
    expect(seen.name).toBeUndefined()
  })

  it('an unknown command asks for --harness', async () => {
    const result = await cli(['record', '--', 'python3', '-c', 'pass'], { env: env() })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--harness')
  })

  it('pi: prints the one setting to add and listens until interrupted; the proxy works meanwhile', async () => {
    const child = spawn(
      process.execPath,
      [bin, 'record', '--store', `sqlite:${join(sandbox.base, 'pi.db')}`, '--', join(stubs, 'pi')],
      {
        cwd: sandbox.base,
        env: env(),
      },
    )
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString()
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)
        if (found) resolve(found[1]!)
      })
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)))
    })
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    // stderr and stdout are two pipes: read both once the process has closed them.
    expect(stderr).toContain(`"baseUrl": "${url}/v1"`)
    expect(stdout).toContain(`ANTHROPIC_BASE_URL=${url}`)
    expect(stderr).toMatch(/sysprompt record: 0 requests/)
  })
})
