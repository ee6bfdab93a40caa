import { describe, expect, it } from 'vitest'
import type { DirEntry, FileSystemAdapter } from './adapters.js'
import { memoFs } from './fs-memo.js'

/** A directory tree in memory that counts what it is asked. */
function counting(tree: Record<string, string[]>) {
  const asked = { stat: 0, readdir: 0, readFile: 0 }
  const entry = (name: string): DirEntry => ({
    name,
    isFile: () => true,
    isDirectory: () => false,
    isSymbolicLink: () => false,
  })
  const has = (path: string) => {
    const at = path.lastIndexOf('/')
    return tree[path.slice(0, at) || '/']?.includes(path.slice(at + 1)) === true
  }
  const base: FileSystemAdapter = {
    realpath: async (path) => path,
    stat: async (path) => {
      asked.stat++
      if (!has(path)) throw Object.assign(new Error('missing'), { code: 'ENOENT' })
      return { kind: 'file', size: 1 }
    },
    readFile: async (path) => {
      asked.readFile++
      return has(path) ? { bytes: new TextEncoder().encode('x'), size: 1 } : undefined
    },
    readdir: async (path) => {
      asked.readdir++
      const names = tree[path]
      if (names === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' })
      return names.map(entry)
    },
  }
  return { base, asked }
}

describe('memoFs (one view of the tree for every mode of a report)', () => {
  it('answers a name missing from its directory from the listing, and asks the rest once', async () => {
    const { base, asked } = counting({ '/r': ['AGENTS.md'], '/r/pkg': [] })
    const fs = memoFs(base)
    for (let round = 0; round < 3; round++) {
      await expect(fs.stat('/r/AGENTS.md')).resolves.toMatchObject({ kind: 'file' })
      await expect(fs.stat('/r/CLAUDE.md')).rejects.toMatchObject({ code: 'ENOENT' })
      await expect(fs.stat('/r/pkg/GEMINI.md')).rejects.toMatchObject({ code: 'ENOENT' })
      await fs.readFile('/r/AGENTS.md', 100)
    }
    // One stat for the file that is there, none for the missing names; each directory listed once.
    expect(asked).toEqual({ stat: 1, readdir: 2, readFile: 1 })
  })

  it('asks the file system when the listing holds the name in another case, or cannot be read', async () => {
    const { base, asked } = counting({ '/r': ['agents.md'] })
    const fs = memoFs(base)
    // A case-insensitive file system would find it: the listing alone cannot say no.
    await expect(fs.stat('/r/AGENTS.md')).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(fs.stat('/nowhere/AGENTS.md')).rejects.toMatchObject({ code: 'ENOENT' })
    expect(asked.stat).toBe(2)
  })

  it('keeps reads apart by byte limit', async () => {
    const { base, asked } = counting({ '/r': ['AGENTS.md'] })
    const fs = memoFs(base)
    await fs.readFile('/r/AGENTS.md', 10)
    await fs.readFile('/r/AGENTS.md', 20)
    await fs.readFile('/r/AGENTS.md', 10)
    expect(asked.readFile).toBe(2)
  })
})
