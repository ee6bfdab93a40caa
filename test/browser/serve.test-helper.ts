/**
 * Starts the BUILT `sysprompt serve --port 0` on a temporary project and
 * reads the address from its first line (`listening on http://…`), with a
 * generous deadline and no fixed sleep.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The package's root directory. */
export const repoRoot = join(import.meta.dirname, '..', '..')
/** The built command. */
export const bin = join(repoRoot, 'dist', 'bin', 'sysprompt.cjs')

/** A running server on a temporary project. */
export interface Served {
  /** `http://127.0.0.1:PORT` */
  url: string
  /** The project directory it serves. */
  project: string
  /** Everything the server wrote to stderr so far (request logs, errors), for failure messages. */
  stderr(): string
  /** Stops the server (SIGTERM, waiting for it to exit) and removes the temporary directories. */
  stop(): Promise<void>
}

const START_DEADLINE_MS = 60_000

function waitForUrl(child: ChildProcess, errors: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(
      () => fail(`no "listening on" line within ${START_DEADLINE_MS} ms`),
      START_DEADLINE_MS,
    )
    const fail = (why: string) => {
      clearTimeout(timer)
      reject(new Error(`sysprompt serve: ${why}\nstdout: ${out}\nstderr: ${errors()}`))
    }
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', (chunk: string) => {
      out += chunk
      const line = out.split('\n', 1)[0]
      if (out.includes('\n')) {
        const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\s*$/.exec(line ?? '')
        clearTimeout(timer)
        if (match) resolve(match[1]!)
        else fail(`unexpected first line ${JSON.stringify(line)}`)
      }
    })
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before listening`))
    child.once('error', (error) => fail(error.message))
  })
}

/** Writes `files` (relative path → text) into a fresh project directory and serves it. */
export async function serveProject(files: Record<string, string>): Promise<Served> {
  if (!existsSync(bin))
    throw new Error('dist/bin/sysprompt.cjs is missing: run `npm run build` (npm test does)')
  const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-page-')))
  const project = join(base, 'project')
  const home = join(base, 'home')
  await mkdir(join(home, '.config'), { recursive: true })
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(project, path, '..'), { recursive: true })
    await writeFile(join(project, path), text)
  }
  await mkdir(project, { recursive: true })
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--cwd', project], {
    cwd: project,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_STATE_HOME: join(home, '.state'),
      XDG_CACHE_HOME: join(home, '.cache'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
    await rm(base, { recursive: true, force: true })
  }
  try {
    const url = await waitForUrl(child, () => stderr)
    return { url, project, stderr: () => stderr, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
