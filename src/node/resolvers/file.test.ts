import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../test/property-runs.test-helper.js'
import type { AssembleContext } from '../../registry/types.js'
import { type FileSystemAdapter, nodeAdapters } from '../adapters.js'
import { fileResolver } from './file.js'

let base: string
let root: string
let outside: string
const SECRET = 'TOP-SECRET-OUTSIDE-THE-ROOT'

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-file-')))
  root = join(base, 'root')
  outside = join(base, 'outside')
  await mkdir(join(root, 'docs'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(root, 'AGENTS.md'), '# Agents\nBe brief.\n')
  await writeFile(join(root, 'docs', 'guide.md'), 'guide\n')
  await writeFile(join(outside, 'secret.txt'), SECRET)
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

function resolver(options: { maxBytes?: number; fs?: FileSystemAdapter; extraRoots?: string[] } = {}) {
  return fileResolver({
    fs: options.fs ?? nodeAdapters().fs,
    roots: [root, ...(options.extraRoots ?? [])],
    maxBytes: options.maxBytes ?? 256 * 1024,
    cwdOf: (ctx: AssembleContext) => (typeof ctx.cwd === 'string' ? ctx.cwd : root),
  })
}

async function one(key: string, options: Parameters<typeof resolver>[0] = {}, ctx: AssembleContext = {}) {
  return (await resolver(options).resolve([key], ctx)).get(key)
}

describe('file resolver', () => {
  it('reads a file relative to the working directory', async () => {
    expect(await one('file:AGENTS.md')).toBe('# Agents\nBe brief.\n')
    expect(await one('file:guide.md', {}, { cwd: join(root, 'docs') })).toBe('guide\n')
    expect(await one('file:../AGENTS.md', {}, { cwd: join(root, 'docs') })).toBe('# Agents\nBe brief.\n')
  })

  it('takes an absolute path inside the root', async () => {
    expect(await one(`file:${join(root, 'docs', 'guide.md')}`)).toBe('guide\n')
  })

  it('resolves only the keys asked, each once', async () => {
    const values = await resolver().resolve(['file:AGENTS.md', 'file:missing.md'], {})
    expect([...values]).toEqual([
      ['file:AGENTS.md', '# Agents\nBe brief.\n'],
      ['file:missing.md', null],
    ])
  })

  it('reads an extra root', async () => {
    expect(await one(`file:${join(outside, 'secret.txt')}`, { extraRoots: [outside] })).toBe(SECRET)
  })

  it('keeps an empty file present', async () => {
    await writeFile(join(root, 'empty.md'), '')
    expect(await one('file:empty.md')).toBe('')
  })
})

describe('file resolver refuses what it must not read', () => {
  it('is absent for a missing file', async () => {
    expect(await one('file:nope.md')).toBeNull()
  })

  it('is absent for `..` that leaves the root', async () => {
    expect(await one('file:../outside/secret.txt')).toBeNull()
    expect(await one('file:docs/../../outside/secret.txt')).toBeNull()
  })

  it('is absent for an absolute path outside the root', async () => {
    expect(await one(`file:${join(outside, 'secret.txt')}`)).toBeNull()
    expect(await one('file:/etc/passwd')).toBeNull()
  })

  it('is absent for a path with a NUL byte', async () => {
    expect(await one('file:AGENTS.md\0.png')).toBeNull()
  })

  it('is absent for a symlink pointing outside the root', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'innocent.md'))
    await symlink(outside, join(root, 'linked-dir'))
    expect(await one('file:innocent.md')).toBeNull()
    expect(await one('file:linked-dir/secret.txt')).toBeNull()
  })

  it('follows a symlink that stays inside the root', async () => {
    await symlink(join(root, 'AGENTS.md'), join(root, 'alias.md'))
    expect(await one('file:alias.md')).toBe('# Agents\nBe brief.\n')
  })

  it('is absent for a FIFO, without blocking on it', async () => {
    execFileSync('mkfifo', [join(root, 'pipe')])
    expect(await one('file:pipe')).toBeNull()
  })

  it('is absent for a symlink to /dev/zero, even with /dev as an extra root', async () => {
    await symlink('/dev/zero', join(root, 'zeros'))
    expect(await one('file:zeros')).toBeNull()
    expect(await one('file:zeros', { extraRoots: ['/dev'] })).toBeNull()
  })

  it('is absent for a directory', async () => {
    expect(await one('file:docs')).toBeNull()
    expect(await one('file:.')).toBeNull()
  })

  it('is absent for a binary file', async () => {
    await writeFile(join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]))
    expect(await one('file:image.png')).toBeNull()
  })

  it('never returns text from outside the root, whatever the path', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'link'))
    const segment = fc.constantFrom('..', '.', 'docs', 'outside', 'secret.txt', 'link', '', root, '\0')
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), async (segments) => {
        const path = segments.join('/')
        if (path === '') return
        const value = await one(`file:${path}`)
        expect(value ?? '').not.toContain(SECRET)
      }),
      { numRuns: propertyRuns(200) },
    )
  })
})

describe('file resolver truncates large files', () => {
  it('cuts a 50 MB sparse file at the cap with a marker, reading no more than the cap', async () => {
    const big = join(root, 'docs', 'big.md')
    await writeFile(big, `${'line of text\n'.repeat(100)}`)
    await truncate(big, 50 * 1024 * 1024)
    // The sparse tail is NUL bytes; the sniff only looks at the first 8 KiB, which is text.
    const real = nodeAdapters().fs
    const reads: { maxBytes: number; got: number }[] = []
    const counting: FileSystemAdapter = {
      ...real,
      async readFile(path, maxBytes) {
        const result = await real.readFile(path, maxBytes)
        reads.push({ maxBytes, got: result?.bytes.length ?? 0 })
        return result
      },
    }
    const value = await one('file:docs/big.md', { fs: counting, maxBytes: 1300 })
    expect(reads).toEqual([{ maxBytes: 1300, got: 1300 }])
    expect(value).toBe(
      `${'line of text\n'.repeat(100)}[… truncated: 52 428 800 bytes of docs/big.md, showing the first 1 300 …]`,
    )
  })

  it('cuts at the last line boundary within the cap', async () => {
    await writeFile(join(root, 'notes.md'), 'first line\nsecond line\nthird line\n')
    expect(await one('file:notes.md', { maxBytes: 15 })).toBe(
      'first line\n[… truncated: 34 bytes of notes.md, showing the first 11 …]',
    )
  })

  it('cuts mid-line, never mid-character, when the first line is longer than the cap', async () => {
    await writeFile(join(root, 'wide.md'), 'ab€€€€')
    // The cap falls inside the second `€` (3 bytes each): only `ab€` is kept.
    expect(await one('file:wide.md', { maxBytes: 7 })).toBe(
      'ab€\n[… truncated: 14 bytes of wide.md, showing the first 5 …]',
    )
  })

  it('keeps a file of exactly the cap whole', async () => {
    await writeFile(join(root, 'exact.md'), '12345')
    expect(await one('file:exact.md', { maxBytes: 5 })).toBe('12345')
  })
})

describe('file resolver budget', () => {
  function budgeted(budget: Parameters<typeof fileResolver>[0]['budget'], fs?: FileSystemAdapter) {
    return fileResolver({
      fs: fs ?? nodeAdapters().fs,
      roots: [root],
      maxBytes: 256 * 1024,
      cwdOf: () => root,
      ...(budget === undefined ? {} : { budget }),
    })
  }

  it('reads a file named by many keys once', async () => {
    const real = nodeAdapters().fs
    let reads = 0
    const counting: FileSystemAdapter = {
      ...real,
      readFile: (path, max) => {
        reads++
        return real.readFile(path, max)
      },
    }
    const keys = Array.from({ length: 50 }, (_, i) => `file:${'./'.repeat(i)}AGENTS.md`)
    const values = await budgeted(undefined, counting).resolve(keys, {})
    expect(reads).toBe(1)
    expect(new Set(values.values())).toEqual(new Set(['# Agents\nBe brief.\n']))
  })

  it('withholds values past the byte budget, counting each use, and says so once', async () => {
    await writeFile(join(root, 'big.md'), 'x'.repeat(1000))
    const told: string[] = []
    const resolver = budgeted({
      maxBytes: 4500,
      usesOf: (key) => (key === 'file:big.md' ? 5 : 1),
      onExceeded: (message) => told.push(message),
    })
    const values = await resolver.resolve(['file:AGENTS.md', 'file:big.md', 'file:docs/guide.md'], {})
    expect(values.get('file:AGENTS.md')).toBe('# Agents\nBe brief.\n')
    expect(values.get('file:big.md')).toBe(
      '[withheld: file:big.md, past the expansion budget of 200 files and 4 500 bytes]',
    )
    // Everything after the first value past the budget is withheld too.
    expect(values.get('file:docs/guide.md')).toMatch(/^\[withheld: file:docs\/guide\.md/)
    expect(told).toHaveLength(1)
    expect(told[0]).toContain('file:big.md is past the expansion budget')
    expect(told[0]).toContain('placed 5 times')
    // Placed fewer times, the same file fits.
    const once = await budgeted({ maxBytes: 4500 }).resolve(['file:big.md'], {})
    expect(once.get('file:big.md')).toBe('x'.repeat(1000))
  })

  it('withholds values past the file budget; absent files cost nothing', async () => {
    const told: string[] = []
    const values = await budgeted({ maxFiles: 1, onExceeded: (m) => told.push(m) }).resolve(
      ['file:missing.md', 'file:AGENTS.md', 'file:./AGENTS.md', 'file:docs/guide.md'],
      {},
    )
    expect(values.get('file:missing.md')).toBeNull()
    expect(values.get('file:./AGENTS.md')).toBe('# Agents\nBe brief.\n')
    expect(values.get('file:docs/guide.md')).toMatch(/^\[withheld: file:docs\/guide\.md/)
    expect(told[0]).toContain('its files are used up')
  })

  it('bounds what any number of keys can bring in', async () => {
    await writeFile(join(root, 'big.md'), `${'y'.repeat(255)}\n`.repeat(1024))
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 50 }), async (n, uses) => {
        const keys = Array.from({ length: n }, (_, i) => `file:${'./'.repeat(i)}big.md`)
        const values = await budgeted({ maxBytes: 1 << 20, usesOf: () => uses }).resolve(keys, {})
        let placed = 0
        for (const value of values.values())
          if (!value?.startsWith('[withheld: ')) placed += (value ?? '').length * uses
        expect(placed).toBeLessThanOrEqual(1 << 20)
        // 256 KiB a use: what fits once is kept.
        if (uses * 256 * 1024 <= 1 << 20) expect(placed).toBeGreaterThan(0)
      }),
      { numRuns: propertyRuns(20) },
    )
  })
})
