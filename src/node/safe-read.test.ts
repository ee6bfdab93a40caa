import { execFileSync, spawn } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FileSystemAdapter, nodeAdapters } from './adapters.js'
import { denyList } from './deny-list.js'
import { readCheckedFile, readConfinedFile, readFailureText } from './safe-read.js'

let root: string
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-safe-read-')))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

const read = (name: string, maxBytes: number) =>
  readConfinedFile(name, root, { roots: [root], maxBytes, fs: nodeAdapters().fs })

describe('readConfinedFile cuts at a character boundary', () => {
  it('drops the partial bytes of a character split by the cap', async () => {
    await writeFile(join(root, 'emoji.md'), 'a🧪b')
    // `🧪` is 4 bytes: caps of 2, 3 and 4 bytes all cut inside it.
    for (const maxBytes of [2, 3, 4]) {
      expect(await read('emoji.md', maxBytes)).toMatchObject({
        ok: true,
        text: 'a',
        truncated: true,
        size: 6,
      })
    }
    expect(await read('emoji.md', 5)).toMatchObject({ ok: true, text: 'a🧪', truncated: true })
  })

  it('keeps a genuine U+FFFD that ends the kept bytes', async () => {
    await writeFile(join(root, 'replacement.md'), 'x\uFFFDyz')
    expect(await read('replacement.md', 4)).toMatchObject({ ok: true, text: 'x\uFFFD', truncated: true })
  })

  it('yields a prefix of the text for any cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
        fc.nat(80),
        async (text, cap) => {
          // NUL makes a file binary; a leading BOM is dropped by design.
          if (text.includes('\0') || text.startsWith('\uFEFF')) return
          await writeFile(join(root, 'any.md'), text)
          const outcome = await read('any.md', cap + 1)
          expect(outcome.ok).toBe(true)
          if (!outcome.ok) return
          expect(text.startsWith(outcome.text)).toBe(true)
          expect(Buffer.byteLength(outcome.text)).toBeLessThanOrEqual(cap + 1)
          expect(outcome.truncated).toBe(Buffer.byteLength(text) > cap + 1)
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('readConfinedFile checks the descriptor it opened', () => {
  /** `root/inner/secret.md` and, outside the root, `outside/inner/secret.md` with other words. */
  async function swappable() {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-swap-')))
    const inside = join(base, 'root')
    const outside = join(base, 'outside')
    await mkdir(join(inside, 'inner'), { recursive: true })
    await mkdir(join(outside, 'inner'), { recursive: true })
    await writeFile(join(inside, 'inner', 'notes.md'), 'inside words')
    await writeFile(join(outside, 'inner', 'notes.md'), 'OUTSIDE SECRET')
    return { base, inside, outside }
  }

  it('refuses a file reached through a directory swapped for a link between the check and the open', async () => {
    const { base, inside, outside } = await swappable()
    const real = nodeAdapters().fs
    let swaps = 0
    const swapping: FileSystemAdapter = {
      ...real,
      async readFile(path, maxBytes) {
        // The hook runs after every check: the directory becomes a link to the outside.
        await rename(join(inside, 'inner'), join(base, 'moved'))
        await symlink(join(outside, 'inner'), join(inside, 'inner'))
        swaps++
        return real.readFile(path, maxBytes)
      },
    }
    try {
      const outcome = await readConfinedFile('inner/notes.md', inside, {
        roots: [inside],
        maxBytes: 1000,
        fs: swapping,
      })
      expect(swaps).toBe(1)
      expect(outcome).toEqual({ ok: false, reason: 'outside-root' })
    } finally {
      await rm(base, { recursive: true, force: true })
    }
  })

  // Bounded: 2 000 reads, however fast the machine; the generous timeout is for a busy one.
  it('never returns a file from outside while another process keeps swapping the directory', {
    timeout: 120_000,
  }, async () => {
    const { base, inside, outside } = await swappable()
    // A separate process flips `inner` between the real directory and a link to the outside, as fast as it can.
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const [dir, moved, target] = process.argv.slice(1);
         let said = false
         for (;;) {
           try { fs.renameSync(dir, moved); fs.symlinkSync(target, dir); fs.unlinkSync(dir); fs.renameSync(moved, dir) } catch {}
           if (!said) { said = true; process.stdout.write('swapping\\n') }
         }`,
        join(inside, 'inner'),
        join(base, 'moved'),
        join(outside, 'inner'),
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    )
    try {
      await new Promise<void>((done, fail) => {
        swapper.stdout.once('data', () => done())
        swapper.once('exit', () => fail(new Error('the swapping process ended early')))
      })
      const fs = nodeAdapters().fs
      const seen = new Map<string, number>()
      for (let i = 0; i < 2000; i++) {
        const outcome = await readConfinedFile('inner/notes.md', inside, {
          roots: [inside],
          maxBytes: 1000,
          fs,
        })
        const key = outcome.ok ? outcome.text : outcome.reason
        seen.set(key, (seen.get(key) ?? 0) + 1)
      }
      expect(seen.has('OUTSIDE SECRET')).toBe(false)
    } finally {
      swapper.kill('SIGKILL')
      await new Promise((done) => (swapper.exitCode === null ? swapper.once('exit', done) : done(null)))
      await rm(base, { recursive: true, force: true })
    }
  })
})

describe('reads say why they refused', () => {
  it('names a symlink loop, a FIFO, a device, a too-large file and a binary one', async () => {
    await symlink(join(root, 'loop-b'), join(root, 'loop-a'))
    await symlink(join(root, 'loop-a'), join(root, 'loop-b'))
    execFileSync('mkfifo', [join(root, 'fifo')])
    await symlink('/dev/zero', join(root, 'zero'))
    await writeFile(join(root, 'big.md'), 'x'.repeat(2000))
    await writeFile(join(root, 'elf'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]))
    const fs = nodeAdapters().fs
    expect(await read('loop-a', 100)).toEqual({ ok: false, reason: 'symlink-loop' })
    expect(await read('fifo', 100)).toEqual({ ok: false, reason: 'not-a-file' })
    expect(await readCheckedFile(join(root, 'zero'), { maxBytes: 100, fs })).toEqual({
      ok: false,
      reason: 'not-a-file',
    })
    expect(await readCheckedFile(join(root, 'big.md'), { maxBytes: 1000, oversize: 'refuse', fs })).toEqual({
      ok: false,
      reason: 'too-large',
      size: 2000,
    })
    expect(await read('elf', 100)).toEqual({ ok: false, reason: 'binary' })
  })

  it('names a permission denied as such, not as missing', async () => {
    const real = nodeAdapters().fs
    const denying: FileSystemAdapter = {
      ...real,
      readFile: async () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })
      },
    }
    await writeFile(join(root, 'locked.md'), 'text')
    const outcome = await readConfinedFile('locked.md', root, { roots: [root], maxBytes: 100, fs: denying })
    expect(outcome).toEqual({ ok: false, reason: 'permission-denied' })
    if (!outcome.ok) expect(readFailureText(outcome)).toBe('cannot be read: permission denied')
  })

  it('reads a file the user named anywhere, with the same checks', async () => {
    const elsewhere = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-elsewhere-')))
    try {
      await writeFile(join(elsewhere, 'template.md'), 'hello')
      expect(
        await readCheckedFile(join(elsewhere, 'template.md'), { maxBytes: 100, fs: nodeAdapters().fs }),
      ).toMatchObject({ ok: true, text: 'hello' })
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })
})

describe('readConfinedFile applies the deny-list', () => {
  it('refuses .git/config, .env and keys by name, also through a link, and reads an allowed one', async () => {
    await mkdir(join(root, '.git'), { recursive: true })
    await writeFile(join(root, '.git', 'config'), '[remote "origin"]\n\turl = https://token@example.com/x')
    await writeFile(join(root, '.env'), 'API_KEY=1')
    await writeFile(join(root, '.env.example'), 'API_KEY=')
    await symlink(join(root, '.git', 'config'), join(root, 'innocent.md'))
    const deny = denyList()
    const fs = nodeAdapters().fs
    const readDenied = (name: string, list = deny) =>
      readConfinedFile(name, root, { roots: [root], maxBytes: 1000, fs, denyList: list })
    expect(await readDenied('.git/config')).toEqual({ ok: false, reason: 'denied', detail: '.git/' })
    expect(await readDenied('innocent.md')).toEqual({
      ok: false,
      reason: 'denied',
      detail: '.git/',
      target: join(await realpath(root), '.git', 'config'),
    })
    expect(await readDenied('.env')).toEqual({ ok: false, reason: 'denied', detail: '.env' })
    expect(await readDenied('.env.example')).toMatchObject({ ok: true, text: 'API_KEY=' })
    expect(await readDenied('.env', denyList(['.env']))).toMatchObject({ ok: true, text: 'API_KEY=1' })
  })
})
