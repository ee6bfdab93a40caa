import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import { bin, cli, repoRoot, sandbox, useSandbox } from './cli.test-helper.js'

useSandbox()

/** A running `sysprompt serve`: its URL (read from the first stdout line) and the process. */
interface Served {
  url: string
  child: ChildProcess
  stderr: () => string
  exited: Promise<number | null>
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: sandbox.home,
      XDG_STATE_HOME: join(sandbox.base, 'state'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (c) => (stderr += c))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)))
  })
  const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first)
  expect(match, first).not.toBeNull()
  return { url: match![1]!, child, stderr: () => stderr, exited }
}

async function project(name: string): Promise<string> {
  const dir = join(sandbox.base, name)
  await mkdir(join(dir, '.sysprompt'), { recursive: true })
  await writeFile(join(dir, 'AGENTS.md'), '# Served\n\nServed words.\n')
  return dir
}

const json = (body: unknown) => ({
  method: 'PUT',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})

describe('sysprompt serve (built CLI)', () => {
  it('serves the API against the default SQLite store, logs requests, stops on SIGTERM and keeps sessions', {
    timeout: 120_000,
  }, async () => {
    const dir = await project('served')
    const first = await serve(['--cwd', dir])
    const made = await fetch(`${first.url}/api/sessions/chat-1`, json({ context: {} }))
    expect(made.status).toBe(200)
    const text = ((await made.json()) as { compiled: { text: string } }).compiled.text
    expect(text).toContain('Served words.')
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200)
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    expect(first.stderr()).toMatch(/^PUT \/api\/sessions\/chat-1 200 \d+(\.\d+)?ms$/m)
    expect(existsSync(join(sandbox.base, 'state', 'sysprompt', 'state.db'))).toBe(true)

    const second = await serve(['--cwd', dir, '--no-log'])
    try {
      const again = await fetch(`${second.url}/api/sessions/chat-1`)
      expect(again.status).toBe(200)
      expect(((await again.json()) as { compiled: { text: string } }).compiled.text).toBe(text)
      const list = (await (await fetch(`${second.url}/api/sessions`)).json()) as {
        sessions: { id: string }[]
      }
      expect(list.sessions.map((s) => s.id)).toEqual(['chat-1'])
    } finally {
      second.child.kill('SIGTERM')
      expect(await second.exited).toBe(0)
    }
    expect(second.stderr()).toBe('')
  })

  it('requires the token of --token-file on every /api route', { timeout: 120_000 }, async () => {
    const dir = await project('token')
    const tokenFile = join(sandbox.base, 'token.txt')
    await writeFile(tokenFile, 'tok-123\n')
    const served = await serve(['--cwd', dir, '--store', 'memory', '--token-file', tokenFile])
    try {
      expect((await fetch(`${served.url}/api/variables`)).status).toBe(401)
      const wrong = await fetch(`${served.url}/api/variables`, {
        headers: { authorization: 'Bearer tok-12' },
      })
      expect(wrong.status).toBe(401)
      const right = await fetch(`${served.url}/api/variables`, {
        headers: { authorization: 'Bearer tok-123' },
      })
      expect(right.status).toBe(200)
    } finally {
      served.child.kill('SIGTERM')
      await served.exited
    }
  })

  it('refuses a host off loopback without a token, and a bad port, as usage errors', {
    timeout: 120_000,
  }, async () => {
    const dir = await project('refuse')
    const [open, port] = await Promise.all([
      cli(['serve', '--cwd', dir, '--host', '0.0.0.0', '--store', 'memory']),
      cli(['serve', '--cwd', dir, '--port', 'x', '--store', 'memory']),
    ])
    expect(open.code).toBe(2)
    expect(open.stderr).toMatch(
      /^sysprompt: refusing to listen on 0\.0\.0\.0 without a token; .*--token-file/,
    )
    expect(port.code).toBe(2)
    expect(port.stderr).toContain('--port x: not a port')
  })
})

describe('sysprompt/server (built package)', () => {
  it('creates the app from the subpath export and answers over it', { timeout: 120_000 }, async () => {
    const dir = await project('library')
    const code = `
      import { memoryStore } from 'sysprompt'
      import { createServerApp } from 'sysprompt/server'
      const app = createServerApp({ root: ${JSON.stringify(dir)}, store: memoryStore() })
      const headers = { host: '127.0.0.1', 'content-type': 'application/json' }
      const preview = await app.request('/api/preview', { method: 'POST', headers, body: '{"context":{}}' })
      const body = await preview.json()
      process.stdout.write(JSON.stringify({ status: preview.status, served: body.compiled.text.includes('Served words.') }))
    `
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: repoRoot,
      encoding: 'utf8',
    })
    expect(JSON.parse(out)).toEqual({ status: 200, served: true })
  })
})
