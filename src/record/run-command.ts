import { execFile, spawn } from 'node:child_process'
import { constants } from 'node:os'

/**
 * Runs the recorded command as the user would (issue 33): its terminal and
 * stdin untouched (inherited), its environment the user's plus `env`.
 * A Ctrl-C at the terminal reaches the command directly (it is in the
 * foreground process group), so `record` ignores SIGINT and SIGQUIT while
 * it runs and waits for it; SIGTERM and SIGHUP sent to `record` are
 * forwarded. Resolves with the command's exit code, or 128 + the signal's
 * number when a signal ended it.
 */
export function runCommand(
  command: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = command
    if (file === undefined) {
      reject(new Error('no command to run'))
      return
    }
    const child = spawn(file, args, { stdio: 'inherit', env: { ...env }, cwd })
    const ignore = (): void => {}
    const forward = (signal: NodeJS.Signals) => (): void => {
      child.kill(signal)
    }
    const term = forward('SIGTERM')
    const hup = forward('SIGHUP')
    process.on('SIGINT', ignore)
    process.on('SIGQUIT', ignore)
    process.on('SIGTERM', term)
    process.on('SIGHUP', hup)
    const done = (): void => {
      process.off('SIGINT', ignore)
      process.off('SIGQUIT', ignore)
      process.off('SIGTERM', term)
      process.off('SIGHUP', hup)
    }
    child.once('error', (error) => {
      done()
      reject(error)
    })
    child.once('exit', (code, signal) => {
      done()
      resolve(code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)))
    })
  })
}

/** How long `COMMAND --version` may take, and how much it may print, before it is given up. */
const VERSION_TIMEOUT_MS = 15_000
const VERSION_OUTPUT_BYTES = 64 * 1024

/** The first `x.y.z` that `COMMAND --version` prints (the words that name the harness, then `--version`), or none. */
export function askVersion(
  words: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<string | undefined> {
  const [file, ...args] = words
  if (file === undefined) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    execFile(
      file,
      [...args, '--version'],
      {
        env: { ...env },
        cwd,
        timeout: VERSION_TIMEOUT_MS,
        maxBuffer: VERSION_OUTPUT_BYTES,
        windowsHide: true,
      },
      (_error, stdout) => {
        resolve(/\d+\.\d+\.\d+(?:-[\w.]+)?/.exec(String(stdout))?.[0])
      },
    )
  })
}
