import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { memoryStore } from '../compile/index.js'
import { createServerApp, type ServerApp, type ServerAppOptions } from './app.js'

/** A temporary project: `.sysprompt/`, an AGENTS.md at the root and one in `packages/api`. */
export async function makeProject(name: string): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const base = await realpath(await mkdtemp(join(tmpdir(), `sysprompt-server-${name}-`)))
  const root = join(base, 'project')
  await mkdir(join(root, '.sysprompt', 'rules'), { recursive: true })
  await mkdir(join(root, 'packages', 'api'), { recursive: true })
  await writeFile(join(root, 'AGENTS.md'), '# Project\n\nRun the tests before you commit.\n')
  await writeFile(join(root, 'packages', 'api', 'AGENTS.md'), '# API\n\nKeep handlers small.\n')
  await writeFile(join(base, 'outside.md'), 'not part of the project\n')
  return { root, cleanup: () => rm(base, { recursive: true, force: true }) }
}

/** The answer of one in-process request: status and parsed JSON body. */
export interface Answer {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as loose JSON and assert on their fields
  body: any
  headers: Headers
}

/** An in-process client of `app` that sends a loopback `Host` (as a browser on 127.0.0.1 would). */
export function client(app: ServerApp, defaults: Record<string, string> = { host: '127.0.0.1' }) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const init: RequestInit = { method, headers: { ...defaults, ...headers } }
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body)
      init.headers = { 'content-type': 'application/json', ...defaults, ...headers }
    }
    const response = await app.request(path, init)
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = text === '' ? undefined : JSON.parse(text)
    } catch {
      parsed = text
    }
    return { status: response.status, body: parsed, headers: response.headers }
  }
}

/**
 * An app over `root` with a memory store unless one is given, building on
 * the test's own thread unless `workers` is given (each worker thread loads
 * the pipeline through tsx, about a second per app; `work-pool.test.ts`
 * runs the routes through real workers).
 */
export function appFor(root: string, options: Partial<ServerAppOptions> = {}): ServerApp {
  return createServerApp({ root, store: options.store ?? memoryStore(), env: {}, workers: 0, ...options })
}
