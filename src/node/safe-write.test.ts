import { execFileSync } from 'node:child_process'
import * as fsp from 'node:fs/promises'
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SafeWriteError, type SafeWriteFs, writeFileSafely } from './safe-write.js'

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-safe-write-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The error a write rejects with (failing the test when it resolves). */
async function refusal(write: Promise<void>): Promise<SafeWriteError> {
  const error = await write.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(SafeWriteError)
  return error as SafeWriteError
}

/** Names left in a directory: a failed or finished write leaves no temporary file. */
const names = async (d: string) => (await readdir(d)).sort()

describe('writeFileSafely writes', () => {
  it('creates a new file and replaces an existing one, keeping its mode', async () => {
    const path = join(dir, 'sysprompt.lock')
    await writeFileSafely(path, 'one\n')
    expect(await readFile(path, 'utf8')).toBe('one\n')
    await chmod(path, 0o640)
    await writeFileSafely(path, new TextEncoder().encode('two\n'))
    expect(await readFile(path, 'utf8')).toBe('two\n')
    expect((await stat(path)).mode & 0o777).toBe(0o640)
    expect(await names(dir)).toEqual(['sysprompt.lock'])
  })

  it('refuses, with exclusive, a file that exists', async () => {
    const path = join(dir, 'template.md')
    await writeFileSafely(path, 'mine', { exclusive: true })
    const error = await refusal(writeFileSafely(path, 'theirs', { exclusive: true }))
    expect(error.code).toBe('exists')
    expect(error.path).toBe(path)
    expect(await readFile(path, 'utf8')).toBe('mine')
    expect(await names(dir)).toEqual(['template.md'])
  })

  it('runs beforeCommit with the new bytes written and the old file still in place; a throw there aborts the write', async () => {
    const path = join(dir, 'template.md')
    await writeFileSafely(path, 'old\n')
    const seen: string[][] = []
    await writeFileSafely(path, 'new\n', {
      beforeCommit: async () => {
        seen.push([await readFile(path, 'utf8'), ...(await names(dir))])
      },
    })
    expect(seen).toHaveLength(1)
    expect(seen[0]?.[0]).toBe('old\n')
    expect(seen[0]?.slice(1).some((n) => n.startsWith('.template.md.') && n.endsWith('.tmp'))).toBe(true)
    expect(await readFile(path, 'utf8')).toBe('new\n')
    const refused = new Error('changed meanwhile')
    await expect(
      writeFileSafely(path, 'newer\n', {
        beforeCommit: () => {
          throw refused
        },
      }),
    ).rejects.toBe(refused)
    expect(await readFile(path, 'utf8')).toBe('new\n')
    expect(await names(dir)).toEqual(['template.md'])
  })
})

describe('writeFileSafely never writes through a link', () => {
  it('refuses a target that is a symlink and leaves its victim alone', async () => {
    const victim = join(dir, 'victim')
    await writeFile(victim, 'precious')
    await mkdir(join(dir, 'project'))
    const lock = join(dir, 'project', 'sysprompt.lock')
    await symlink(victim, lock)
    const error = await refusal(writeFileSafely(lock, 'lock text'))
    expect(error.code).toBe('target-is-link')
    expect(error.path).toBe(lock)
    expect(error.message).toContain(lock)
    expect(await readFile(victim, 'utf8')).toBe('precious')
    expect(await names(join(dir, 'project'))).toEqual(['sysprompt.lock'])
  })

  it('refuses a dangling symlink too (it would create the file it points at)', async () => {
    const lock = join(dir, 'sysprompt.lock')
    await symlink(join(dir, 'created-elsewhere'), lock)
    expect((await refusal(writeFileSafely(lock, 'x'))).code).toBe('target-is-link')
    expect(await names(dir)).toEqual(['sysprompt.lock'])
  })

  it('refuses a parent directory that is a link, anywhere below the root', async () => {
    const elsewhere = join(dir, 'elsewhere')
    await mkdir(join(elsewhere, 'rules'), { recursive: true })
    const project = join(dir, 'project')
    await mkdir(project)
    await symlink(elsewhere, join(project, '.sysprompt'))
    const direct = await refusal(writeFileSafely(join(project, '.sysprompt', 'template.md'), 'x'))
    expect(direct.code).toBe('parent-is-link')
    expect(direct.path).toBe(join(project, '.sysprompt'))
    const nested = await refusal(
      writeFileSafely(join(project, '.sysprompt', 'rules', 'a.md'), 'x', { root: project }),
    )
    expect(nested.code).toBe('parent-is-link')
    expect(nested.path).toBe(join(project, '.sysprompt'))
    expect(await names(elsewhere)).toEqual(['rules'])
    expect(await names(join(elsewhere, 'rules'))).toEqual([])
  })

  it('refuses when the directory is swapped for a link between the checks and the open', async () => {
    const elsewhere = join(dir, 'elsewhere')
    await mkdir(elsewhere)
    const project = join(dir, 'project')
    await mkdir(project)
    let swapped = false
    const swapping: SafeWriteFs = {
      ...fsp,
      open: (async (path: string, ...rest: []) => {
        if (!swapped) {
          swapped = true
          await rename(project, join(dir, 'moved'))
          await symlink(elsewhere, project)
        }
        return fsp.open(path, ...rest)
      }) as SafeWriteFs['open'],
    }
    const error = await refusal(writeFileSafely(join(project, 'sysprompt.lock'), 'x', { fs: swapping }))
    expect(swapped).toBe(true)
    expect(error.code).toBe('parent-is-link')
    expect(await names(elsewhere)).toEqual([])
  })

  it('flushes the bytes to the disk before the rename, unless the write is not durable (a cache)', async () => {
    const synced: boolean[] = []
    const recording: SafeWriteFs = {
      ...fsp,
      open: (async (...args: Parameters<typeof fsp.open>) => {
        const handle = await fsp.open(...args)
        const sync = handle.sync.bind(handle)
        handle.sync = async () => {
          synced.push(true)
          return sync()
        }
        return handle
      }) as SafeWriteFs['open'],
    }
    await writeFileSafely(join(dir, 'sysprompt.lock'), 'kept', { fs: recording })
    expect(synced).toEqual([true])
    await writeFileSafely(join(dir, 'counts.json'), 'cached', { fs: recording, durable: false })
    expect(synced).toEqual([true])
    expect(await readFile(join(dir, 'counts.json'), 'utf8')).toBe('cached')
  })

  it('replaces, not follows, a link that appears at the target just before the rename', async () => {
    const victim = join(dir, 'victim')
    await writeFile(victim, 'precious')
    const lock = join(dir, 'sysprompt.lock')
    const racing: SafeWriteFs = {
      ...fsp,
      rename: async (from, to) => {
        await symlink(victim, lock)
        return fsp.rename(from, to)
      },
    }
    await writeFileSafely(lock, 'lock text', { fs: racing })
    expect(await readFile(victim, 'utf8')).toBe('precious')
    expect((await lstat(lock)).isFile()).toBe(true)
    expect(await readFile(lock, 'utf8')).toBe('lock text')
  })
})

describe('writeFileSafely says why it cannot write', () => {
  it('refuses a FIFO target without blocking', async () => {
    const fifo = join(dir, 'sysprompt.lock')
    execFileSync('mkfifo', [fifo])
    const error = await refusal(writeFileSafely(fifo, 'x'))
    expect(error.code).toBe('not-a-file')
    expect(error.message).toContain('not a regular file')
  })

  it('refuses a directory target and a missing parent', async () => {
    await mkdir(join(dir, 'sysprompt.lock'))
    expect((await refusal(writeFileSafely(join(dir, 'sysprompt.lock'), 'x'))).code).toBe('not-a-file')
    const missing = await refusal(writeFileSafely(join(dir, 'nope', 'file'), 'x'))
    expect(missing.code).toBe('parent-missing')
    expect(missing.path).toBe(join(dir, 'nope'))
  })

  it('names a permission denied as such and leaves no temporary file', async () => {
    const denying: SafeWriteFs = {
      ...fsp,
      open: (async () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })
      }) as SafeWriteFs['open'],
    }
    const error = await refusal(writeFileSafely(join(dir, 'sysprompt.lock'), 'x', { fs: denying }))
    expect(error.code).toBe('permission-denied')
    expect(error.message).toContain('permission denied')
    expect(error.path).toBe(dir)
    expect(await names(dir)).toEqual([])
  })

  it('cleans up its temporary file when the rename fails', async () => {
    const failing: SafeWriteFs = {
      ...fsp,
      rename: async () => {
        throw Object.assign(new Error('EIO'), { code: 'EIO' })
      },
    }
    const error = await refusal(writeFileSafely(join(dir, 'sysprompt.lock'), 'x', { fs: failing }))
    expect(error.code).toBe('write-failed')
    expect(await names(dir)).toEqual([])
  })
})
