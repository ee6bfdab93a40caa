import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  acquireFileLock,
  FileLockError,
  isStale,
  type LockInfo,
  parseLock,
  processAlive,
  withFileLock,
} from './file-lock.js'

let dir: string
let lock: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-file-lock-')))
  await mkdir(join(dir, '.sysprompt'))
  lock = join(dir, '.sysprompt', 'template.md.lock')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const names = async () => (await readdir(join(dir, '.sysprompt'))).sort()
const lockText = (info: Partial<LockInfo>) =>
  `${JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString(), nonce: 'n', ...info })}\n`

/** What `promise` rejects with (failing the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<FileLockError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(FileLockError)
  return error as FileLockError
}

/** A child process that takes the lock with this module and holds it until killed. */
async function holder(): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const script = `import { acquireFileLock } from ${JSON.stringify(new URL('./file-lock.ts', import.meta.url).href)}
await acquireFileLock(${JSON.stringify(lock)}, { root: ${JSON.stringify(dir)} })
console.log('held')
setInterval(() => {}, 60_000)`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', () => resolve())
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)))
  })
  return { child, exited }
}

describe('withFileLock', () => {
  it('holds a lock file with its pid, host, time and nonce while the callback runs, and removes it after', async () => {
    const seen = await withFileLock(lock, async () => parseLock(await readFile(lock, 'utf8')), { root: dir })
    expect(seen).toMatchObject({ pid: process.pid, host: hostname() })
    expect(seen?.nonce).toMatch(/^[0-9a-f]{24}$/)
    expect(await names()).toEqual([])
  })

  it('releases the lock when the callback throws', async () => {
    await expect(
      withFileLock(
        lock,
        async () => {
          throw new Error('boom')
        },
        { root: dir },
      ),
    ).rejects.toThrow('boom')
    expect(await names()).toEqual([])
  })

  it('runs the callers of one process one at a time, in order', async () => {
    let inside = 0
    let most = 0
    const order: number[] = []
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        withFileLock(
          lock,
          async () => {
            inside++
            most = Math.max(most, inside)
            await new Promise((r) => setImmediate(r))
            order.push(i)
            inside--
          },
          { root: dir },
        ),
      ),
    )
    expect(most).toBe(1)
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  })

  it('waits for a lock another live process holds, and takes it over once that process is killed', {
    timeout: 60_000,
  }, async () => {
    const { child, exited } = await holder()
    const error = await rejection(acquireFileLock(lock, { root: dir, waitMs: 100 }))
    expect(error.code).toBe('busy')
    expect(error.holder?.pid).toBe(child.pid)
    expect(error.message).toContain(`held by process ${child.pid} on ${hostname()}`)
    expect(error.message).toContain('remove the file')
    child.kill('SIGKILL')
    await exited
    // The killed holder left its lock behind: its pid is gone, so the lock is stale.
    expect(parseLock(await readFile(lock, 'utf8'))?.pid).toBe(child.pid)
    const mine = await withFileLock(lock, async () => parseLock(await readFile(lock, 'utf8')), { root: dir })
    expect(mine?.pid).toBe(process.pid)
    expect(await names()).toEqual([])
  })

  it('takes the lock as soon as its holder removes it', async () => {
    await writeFile(lock, lockText({ pid: process.ppid }))
    const taking = acquireFileLock(lock, { root: dir, waitMs: 200_000 })
    await rm(lock)
    const held = await taking
    expect(held.info.pid).toBe(process.pid)
    await held.release()
    expect(await names()).toEqual([])
  })

  it('takes over a lock older than the bound, even of a live process', async () => {
    await writeFile(lock, lockText({ pid: process.ppid, at: new Date(Date.now() - 3_600_000).toISOString() }))
    const held = await acquireFileLock(lock, { root: dir, waitMs: 0 })
    expect(held.info.pid).toBe(process.pid)
    await held.release()
  })

  it('takes over a lock dated in the future, garbage, and a symbolic link (whose target it leaves alone)', async () => {
    const outside = join(dir, 'outside.txt')
    await writeFile(outside, 'keep me\n')
    for (const plant of [
      () => writeFile(lock, lockText({ at: new Date(Date.now() + 3_600_000).toISOString() })),
      () => writeFile(lock, 'not a lock\n'),
      () => writeFile(lock, lockText({ pid: 0 })),
      () => symlink(outside, lock),
    ]) {
      await plant()
      const held = await acquireFileLock(lock, { root: dir, waitMs: 0 })
      expect(parseLock(await readFile(lock, 'utf8'))?.nonce).toBe(held.info.nonce)
      await held.release()
      expect(await names()).toEqual([])
    }
    expect(await readFile(outside, 'utf8')).toBe('keep me\n')
  })

  it("judges another host's lock by its age alone", async () => {
    await writeFile(lock, lockText({ host: `not-${hostname()}`, pid: 2 ** 30 }))
    const error = await rejection(acquireFileLock(lock, { root: dir, waitMs: 0, isAlive: () => false }))
    expect(error.code).toBe('busy')
  })

  it('refuses a directory at the lock path, saying to remove it', async () => {
    await mkdir(lock)
    const error = await rejection(acquireFileLock(lock, { root: dir }))
    expect(error.code).toBe('not-a-file')
    expect(error.message).toContain('remove it')
    expect((await stat(lock)).isDirectory()).toBe(true)
  })

  it('does not remove on release a lock that is no longer its own', async () => {
    const held = await acquireFileLock(lock, { root: dir })
    await writeFile(lock, lockText({ nonce: 'someone-else' }))
    await held.release()
    expect(parseLock(await readFile(lock, 'utf8'))?.nonce).toBe('someone-else')
  })
})

describe('lock files', () => {
  it('parseLock takes only what acquireFileLock writes, and never throws (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const info = parseLock(text)
        if (info !== undefined) expect(info.pid).toBeGreaterThan(0)
      }),
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.string(),
        fc.date({ noInvalidDate: true }),
        fc.string({ minLength: 1 }),
        (pid, host, at, nonce) => {
          const info = { pid, host, at: at.toISOString(), nonce }
          expect(parseLock(JSON.stringify(info))).toEqual(info)
        },
      ),
    )
    for (const bad of ['{}', '[]', 'null', '{"pid":-1,"host":"h","at":"2020-01-01T00:00:00Z","nonce":"n"}']) {
      expect(parseLock(bad)).toBeUndefined()
    }
  })

  it('isStale: older or newer than the bound, or a dead process of this host (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -100_000, max: 100_000 }),
        fc.boolean(),
        fc.boolean(),
        (age, sameHost, alive) => {
          const now = 1_700_000_000_000
          const info = {
            pid: 5,
            host: sameHost ? 'here' : 'there',
            at: new Date(now - age).toISOString(),
            nonce: 'n',
          }
          const stale = isStale(info, { now, staleMs: 30_000, host: 'here', isAlive: () => alive })
          expect(stale).toBe(Math.abs(age) > 30_000 || (sameHost && !alive))
        },
      ),
    )
  })

  it('processAlive: this process is, a reaped child is not', async () => {
    expect(processAlive(process.pid)).toBe(true)
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise((resolve) => child.once('exit', resolve))
    expect(processAlive(child.pid as number)).toBe(false)
  })
})
