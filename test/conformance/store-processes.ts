import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** How a child process opens a store: a module's exported factory called with JSON options. */
export interface ChildOpen {
  /** Absolute path of the module (TypeScript is fine: children run under tsx). */
  module: string
  /** The factory's export name, e.g. `sqliteStore`. */
  export: string
  /** Passed to the factory as is; must survive JSON. */
  options: unknown
}

/** What one child is asked to do; see `store-child.ts`. */
export type ChildTask =
  | { task: 'construct'; id: string; index: number }
  | { task: 'append'; id: string; index: number; count: number }
  | { task: 'write-forever'; id: string; index: number }
  | { task: 'record'; id: string; index: number; count: number }

const CHILD = fileURLToPath(new URL('./store-child.ts', import.meta.url))

/** Generous: children start under tsx on a busy 2-core machine. */
const DEADLINE_MS = 120_000

/** A store child process, started and ready to be told what to do. */
export interface StoreChild {
  process: ChildProcess
  /** Resolves on each line the child prints. */
  lines: AsyncIterator<string>
  stderr: () => string
}

/** Starts one child that will open `open`, and resolves once it printed `ready`. */
export async function startStoreChild(open: ChildOpen, task: ChildTask): Promise<StoreChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify({ open, ...task })], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const lines = lineReader(child)
  const first = await withDeadline(lines.next(), `child ${task.index} to start`, () => stderr)
  if (first.done || first.value !== 'ready') {
    child.kill('SIGKILL')
    throw new Error(`store child ${task.index} did not start: ${first.value ?? ''}\n${stderr}`)
  }
  return { process: child, lines, stderr: () => stderr }
}

/**
 * Starts `count` children (all running at once, so keep it small), waits
 * until every one is ready, releases them together, and returns each one's
 * JSON result in index order. A child that fails rejects with its stderr.
 */
export async function runStoreChildren(
  open: ChildOpen,
  count: number,
  task: (index: number) => ChildTask,
): Promise<Record<string, unknown>[]> {
  const children = await Promise.all(Array.from({ length: count }, (_, i) => startStoreChild(open, task(i))))
  try {
    for (const child of children) child.process.stdin!.write('go\n')
    return await Promise.all(
      children.map(async (child, i) => {
        const line = await withDeadline(child.lines.next(), `child ${i} to finish`, child.stderr)
        const code = await withDeadline(exited(child.process), `child ${i} to exit`, child.stderr)
        if (line.done || !line.value.startsWith('result ') || code !== 0)
          throw new Error(`store child ${i} failed (exit ${code}): ${line.value ?? ''}\n${child.stderr()}`)
        return JSON.parse(line.value.slice('result '.length)) as Record<string, unknown>
      }),
    )
  } finally {
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL')
  }
}

/** Resolves with the exit code (or the signal name) once the process ended. */
export function exited(child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.exitCode ?? child.signalCode)
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
}

function lineReader(child: ChildProcess): AsyncIterator<string> {
  const queue: string[] = []
  const waiting: ((r: IteratorResult<string>) => void)[] = []
  let buffer = ''
  let ended = false
  const push = (line: string) => {
    const next = waiting.shift()
    if (next) next({ value: line, done: false })
    else queue.push(line)
  }
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      push(buffer.slice(0, i))
      buffer = buffer.slice(i + 1)
    }
  })
  child.stdout!.on('end', () => {
    ended = true
    for (const w of waiting.splice(0)) w({ value: undefined, done: true })
  })
  return {
    next() {
      const line = queue.shift()
      if (line !== undefined) return Promise.resolve({ value: line, done: false })
      if (ended) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve) => waiting.push(resolve))
    },
  }
}

/** Waits for `promise`, failing with what the child printed if it takes longer than the deadline. */
export function withDeadline<T>(promise: Promise<T>, what: string, stderr: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}\n${stderr()}`)), DEADLINE_MS)
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}
