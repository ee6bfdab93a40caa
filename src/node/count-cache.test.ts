import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { compile } from '../compile/compile.js'
import { createPromptRegistry } from '../registry/index.js'
import { diskCountCache, userCacheDir } from './count-cache.js'
import { nodeHash } from './node-hash.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sysprompt-counts-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const ID = 'o200k@gpt-tokenizer@4.0.0+split-1'
const FORMAT = 'sysprompt-token-counts/2'
const shardFile = (text: string) => join(dir, 'counts', `${nodeHash(text).slice(0, 2)}.json`)

describe('diskCountCache', () => {
  it('keeps counts across instances once flushed', async () => {
    const first = diskCountCache({ dir })
    first.set(ID, 'hello world', 2)
    expect(first.get(ID, 'hello world')).toBe(2)
    expect(diskCountCache({ dir }).get(ID, 'hello world')).toBeUndefined()
    expect(await first.flush()).toEqual([])
    const second = diskCountCache({ dir })
    expect(second.get(ID, 'hello world')).toBe(2)
    expect(second.get('cl100k@gpt-tokenizer@4.0.0+split-1', 'hello world')).toBeUndefined()
    expect(second.get(ID, 'hello world!')).toBeUndefined()
  })

  it('merges what another process wrote meanwhile', async () => {
    const a = diskCountCache({ dir })
    const b = diskCountCache({ dir })
    // Same text, two tokenizers: both land in one file.
    a.set(ID, 'shared file', 3)
    b.set('cl100k@v', 'shared file', 4)
    await a.flush()
    await b.flush()
    const c = diskCountCache({ dir })
    expect(c.get(ID, 'shared file')).toBe(3)
    expect(c.get('cl100k@v', 'shared file')).toBe(4)
  })

  it('ignores a corrupt, foreign or oversized file and rebuilds it', async () => {
    const text = 'a text to count'
    await mkdir(join(dir, 'counts'), { recursive: true })
    for (const junk of [
      '{not json',
      JSON.stringify({ format: 'other', entries: [[`${ID} ${nodeHash(text)}`, 5]] }),
      JSON.stringify({ format: FORMAT, entries: [[`${ID} ${nodeHash(text)}`, -1]] }),
      JSON.stringify({ format: FORMAT, entries: [[`${ID} ${nodeHash(text)}`, '5']] }),
      JSON.stringify({ format: FORMAT, entries: [['../../etc', 5]] }),
      'x'.repeat(4096 * 3),
    ]) {
      await writeFile(shardFile(text), junk)
      expect(diskCountCache({ dir, maxBytes: 4096 * 256 }).get(ID, text)).toBeUndefined()
    }
    const cache = diskCountCache({ dir })
    cache.set(ID, text, 4)
    await cache.flush()
    expect(JSON.parse(await readFile(shardFile(text), 'utf8')).format).toBe(FORMAT)
    expect(diskCountCache({ dir }).get(ID, text)).toBe(4)
  })

  it('never reads or writes through a link', async () => {
    const text = 'linked'
    const elsewhere = join(dir, 'elsewhere.json')
    await writeFile(elsewhere, JSON.stringify({ format: FORMAT, entries: [[`${ID} ${nodeHash(text)}`, 9]] }))
    await mkdir(join(dir, 'counts'), { recursive: true })
    await symlink(elsewhere, shardFile(text))
    const cache = diskCountCache({ dir })
    expect(cache.get(ID, text)).toBeUndefined()
    cache.set(ID, text, 1)
    const problems = await cache.flush()
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain('symbolic link')
    expect(JSON.parse(await readFile(elsewhere, 'utf8')).entries[0][1]).toBe(9)
  })

  it('stays within its bound, dropping the oldest counts first', async () => {
    const cache = diskCountCache({ dir, maxBytes: 4096 * 256 })
    // Texts that share a file: find 200 that hash to the same first byte.
    const texts: string[] = []
    for (let i = 0; texts.length < 200; i++) {
      const t = `text ${i}`
      if (nodeHash(t).startsWith('00')) texts.push(t)
    }
    for (const [i, t] of texts.entries()) cache.set(ID, t, i)
    await cache.flush()
    const file = await readFile(join(dir, 'counts', '00.json'), 'utf8')
    expect(file.length).toBeLessThanOrEqual(4096 * 1.2)
    const after = diskCountCache({ dir, maxBytes: 4096 * 256 })
    expect(after.get(ID, texts.at(-1)!)).toBe(199)
    expect(after.get(ID, texts[0]!)).toBeUndefined()
  })

  it('serves compile, so a warm compile counts nothing', async () => {
    const registry = createPromptRegistry()
    registry.section({ name: 'a', order: 1, text: 'Cached words for a cached count.' })
    const assembly = await registry.assemble()
    const cache = diskCountCache({ dir })
    const cold = compile(assembly, { countCache: cache })
    await cache.flush()
    const counted: string[] = []
    const warm = diskCountCache({ dir })
    const spy = {
      get: (t: string, x: string) => warm.get(t, x),
      set: (t: string, x: string, n: number) => {
        counted.push(x)
        warm.set(t, x, n)
      },
    }
    expect(compile(assembly, { countCache: spy }).tokens).toBe(cold.tokens)
    expect(counted).toEqual([])
    expect((await readdir(join(dir, 'counts'))).length).toBeGreaterThan(0)
  })
})

describe('userCacheDir', () => {
  it('follows XDG_CACHE_HOME, else the platform', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' }, 'linux')).toBe('/x/cache/sysprompt')
    expect(userCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' }, 'linux')).toBe('/h/.cache/sysprompt')
    expect(userCacheDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Caches/sysprompt')
    expect(userCacheDir({}, 'linux')).toBeUndefined()
  })
})
