import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type FileSystemAdapter, nodeAdapters } from '../adapters.js'
import { readCliFile } from '../project/read-file.js'
import { discoverInstructions } from './discover.js'

// Each OS error gets its own reason, with the path: a permission problem is
// never "does not exist", an unreadable file is never dropped silently.

let root: string
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-reasons-')))
  await mkdir(join(root, '.git'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** The real adapter, but reading `denied` fails as an unprivileged user's read of a 0600 file would. */
function denying(denied: string): FileSystemAdapter {
  const real = nodeAdapters().fs
  return {
    ...real,
    async readFile(path, maxBytes) {
      if (path === denied)
        throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' })
      return real.readFile(path, maxBytes)
    },
  }
}

const discover = (fs?: FileSystemAdapter) =>
  discoverInstructions({
    cwd: root,
    root,
    home: join(root, 'no-home'),
    fsRoot: root,
    ...(fs === undefined ? {} : { fs }),
  })

describe('discovery names why a file was not read', () => {
  it('reports an unreadable AGENTS.md as permission denied instead of dropping it', async () => {
    await writeFile(join(root, 'AGENTS.md'), 'Rules.\n')
    const found = await discover(denying(join(root, 'AGENTS.md')))
    expect(found.files).toEqual([])
    expect(found.diagnostics).toEqual([
      expect.objectContaining({
        code: 'unreadable',
        message: 'AGENTS.md cannot be read: permission denied; it was skipped.',
      }),
    ])
  })

  it('says an unreadable import is unreadable, not missing', async () => {
    await writeFile(join(root, 'AGENTS.md'), 'Rules.\n\n@docs/private.md\n')
    await mkdir(join(root, 'docs'))
    await writeFile(join(root, 'docs', 'private.md'), 'Private.\n')
    const found = await discover(denying(join(root, 'docs', 'private.md')))
    const diagnostic = found.diagnostics.find((d) => d.path === join(root, 'docs', 'private.md'))
    expect(diagnostic?.code).toBe('unreadable')
    expect(diagnostic?.message).toContain('cannot be read: permission denied')
    expect(diagnostic?.message).not.toContain('does not exist')
  })

  it('says a symlink loop is a loop', async () => {
    await writeFile(join(root, 'AGENTS.md'), '@loop-a.md\n')
    await symlink(join(root, 'loop-b.md'), join(root, 'loop-a.md'))
    await symlink(join(root, 'loop-a.md'), join(root, 'loop-b.md'))
    const found = await discover()
    const diagnostic = found.diagnostics.find((d) => d.path === join(root, 'loop-a.md'))
    expect(diagnostic?.message).toContain('is a symbolic link loop')
  })
})

describe('the command line names why a file was not read', () => {
  it('says an unreadable lock is permission denied, naming it', async () => {
    const lock = join(root, 'sysprompt.lock')
    await writeFile(lock, '{}')
    const read = await readCliFile({ path: lock, root, maxBytes: 1 << 20, fs: denying(lock) }, lock)
    expect(read).toEqual({
      ok: false,
      reason: 'permission-denied',
      message: `${lock} cannot be read: permission denied`,
    })
  })
})
