/**
 * Runs a published harness through `sysprompt record` (issue 33: the
 * release-following routine records through it, one routine): the harness
 * still reaches the mock model server, now through record's proxy, and
 * record's drift verdict says whether what it sent matches sysprompt's view.
 *
 * Claude Code, Gemini CLI and Codex are run as `record -- COMMAND` (record
 * points them itself); opencode and pi read their provider's base URL from
 * the config the recipe writes, so record listens on its own port
 * (`record --listen`) and the recipe points them there.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import type { HarnessRecorder } from './harnesses.js'

/** The harnesses record points by itself (environment or flags); the others go through `--listen`. */
export function pointsItself(mode: HarnessRecorder['mode']): boolean {
  return mode === 'claude' || mode === 'gemini' || mode === 'codex'
}

/** Where record keeps its store and key for one run (inside the run's temporary directory). */
export function recordEnv(base: string): Record<string, string> {
  return { XDG_CACHE_HOME: join(base, 'cache'), XDG_STATE_HOME: join(base, 'state') }
}

/** The words before the harness's own command: `node sysprompt.cjs record --check-drift … --`. */
export function recordPrefix(
  cli: string,
  mode: HarnessRecorder['mode'],
  base: string,
  mockUrl: string,
): string[] {
  return [
    cli,
    'record',
    '--check-drift',
    '--harness',
    mode,
    '--store',
    `sqlite:${join(base, 'record.db')}`,
    // Codex's provider is record's own (its base URL the proxy), so its upstream is given here.
    ...(mode === 'codex' ? ['--upstream', `openai=${mockUrl}`] : []),
    '--',
  ]
}

/** record's own lines in a run's output: its summary and its drift verdicts. */
export function recordLines(output: string): string[] {
  return output
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('sysprompt record:') ||
        l.startsWith('drift:') ||
        l.startsWith('  expected:') ||
        l.startsWith('  sent:'),
    )
}

/** `record --listen` on a free port, forwarding to the mock; `stop()` interrupts it and gives its output. */
export async function startRecordListen(
  cli: string,
  mode: HarnessRecorder['mode'],
  mockUrl: string,
  base: string,
  env: Record<string, string>,
): Promise<{ url: string; stop(): Promise<string> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      cli,
      'record',
      '--listen',
      '--harness',
      mode,
      '--store',
      `sqlite:${join(base, 'record.db')}`,
      '--upstream',
      mockUrl,
    ],
    { env: { ...env, ...recordEnv(base) }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = ''
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString()
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)
      if (found) resolve(found[1]!)
    })
    child.once('close', () => reject(new Error(`record --listen ended before listening: ${output}`)))
  })
  return {
    url,
    async stop() {
      child.kill('SIGINT')
      await closed
      return output
    },
  }
}
