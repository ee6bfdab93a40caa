import { type ChildProcess, spawn } from 'node:child_process'
import { request } from 'node:http'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { bin, env, sandbox } from './cli.test-helper.js'

/** A running `sysprompt serve` of the built package: its URL (from the first stdout line) and the process. */
export interface Served {
  url: string
  port: number
  child: ChildProcess
  stderr: () => string
  exited: Promise<number | null>
  /** SIGTERM, then the exit code. */
  stop: () => Promise<number | null>
}

/** Starts the built `sysprompt serve --port 0 …args` and waits for the line that names its URL. */
export async function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    env: env({ XDG_STATE_HOME: join(sandbox.base, 'state') }),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (c) => (stderr += c))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const first = await new Promise<string>((resolve, reject) => {
    if (child.stdout === null) return reject(new Error('serve has no stdout'))
    createInterface({ input: child.stdout }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)))
  })
  const match = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(first)
  if (match === null) throw new Error(`serve printed ${first}`)
  return {
    url: match[1] as string,
    port: Number(match[2]),
    child,
    stderr: () => stderr,
    exited,
    stop: () => {
      child.kill('SIGTERM')
      return exited
    },
  }
}

/** An answer: status and parsed JSON body. */
export interface Answer {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as loose JSON and assert on their fields
  body: any
}

/** One request on its own connection (no pooling, so concurrent requests are concurrent on the wire). */
export function send(served: Served, method: string, path: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: served.port,
        method,
        path,
        agent: false,
        headers: {
          host: `127.0.0.1:${served.port}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (text += c))
        res.on('end', () => {
          let parsed: unknown
          try {
            parsed = text === '' ? undefined : JSON.parse(text)
          } catch {
            parsed = text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}
