import { execFileSync } from 'node:child_process'
import { chmod, lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { diskCountCache } from './count-cache.js'
import { nodeHash } from './node-hash.js'
import {
  cacheInsideProject,
  cacheMac,
  forgetCacheKeys,
  insideProject,
  onCacheProblem,
  prepareUserCache,
  userCacheKey,
} from './user-cache.js'

// The user's cache directory is trusted only when it is outside the
// project, this user's with mode 0700, and each entry carries an HMAC
// under the per-user key kept beside them; real directories, real git.

let base: string
let problems: string[]
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-user-cache-')))
  problems = []
  onCacheProblem((message) => problems.push(message))
  forgetCacheKeys()
})
afterEach(async () => {
  onCacheProblem(undefined)
  forgetCacheKeys()
  await rm(base, { recursive: true, force: true })
})

const gitInit = (dir: string) => execFileSync('git', ['init', '-q', dir])
const modeOf = async (path: string) => (await lstat(path)).mode & 0o777

describe('insideProject', () => {
  it('takes the git root of the start as the project: a cache in it is inside, one beside it is not', async () => {
    const repo = join(base, 'repo')
    await mkdir(join(repo, 'src', 'deep'), { recursive: true })
    gitInit(repo)
    const start = join(repo, 'src', 'deep')
    expect(insideProject(join(repo, '.cache', 'sysprompt'), start)).toBe(true)
    expect(insideProject(join(repo, 'home', '.cache', 'sysprompt'), repo)).toBe(true)
    expect(insideProject(join(base, 'home', '.cache', 'sysprompt'), start)).toBe(false)
    // A nested repository is a project of its own: the outer one's cache is outside it.
    const inner = join(repo, 'vendor', 'lib')
    await mkdir(inner, { recursive: true })
    gitInit(inner)
    expect(insideProject(join(repo, '.cache'), inner)).toBe(false)
    expect(insideProject(join(inner, '.cache'), inner)).toBe(true)
  })

  it('takes a .sysprompt directory as a root too, and the start itself when there is no marker', async () => {
    const project = join(base, 'project')
    await mkdir(join(project, '.sysprompt'), { recursive: true })
    await mkdir(join(project, 'a'), { recursive: true })
    expect(insideProject(join(project, 'cache'), join(project, 'a'))).toBe(true)
    const plain = join(base, 'plain')
    await mkdir(join(plain, 'a'), { recursive: true })
    expect(insideProject(join(plain, 'a', 'cache'), join(plain, 'a'))).toBe(true)
    expect(insideProject(join(plain, 'b', 'cache'), join(plain, 'a'))).toBe(false)
  })

  it('compares real paths: a link outside that leads into the project is inside, and so is a cache not made yet', async () => {
    const repo = join(base, 'linked-repo')
    await mkdir(join(repo, 'cache-here'), { recursive: true })
    gitInit(repo)
    await symlink(join(repo, 'cache-here'), join(base, 'cache-link'))
    expect(insideProject(join(base, 'cache-link', 'sysprompt'), repo)).toBe(true)
    expect(insideProject(join(repo, 'not', 'made', 'yet'), repo)).toBe(true)
    expect(cacheInsideProject(join(base, 'cache-link'), [join(base, 'elsewhere'), repo])).toBe(
      `the cache directory ${join(base, 'cache-link')} is inside the project at ${repo}, where a repository could have put it`,
    )
    expect(cacheInsideProject(join(base, 'outside'), [repo])).toBeUndefined()
  })

  it('agrees with a plain walk up from the start, for any layout of markers', async () => {
    // Directories d0/d1/…/d5 under base; markers at some depths; the cache at some depth of some branch.
    const chain = Array.from({ length: 6 }, (_, i) => `d${i}`)
    await mkdir(join(base, ...chain), { recursive: true })
    await mkdir(join(base, 'd0', 'side', 'x'), { recursive: true })
    const layout = fc.record({
      markers: fc.subarray([0, 1, 2, 3, 4, 5]),
      start: fc.integer({ min: 0, max: 5 }),
      cacheAt: fc.integer({ min: 0, max: 6 }),
      side: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(layout, async ({ markers, start, cacheAt, side }) => {
        for (let i = 0; i < 6; i++) await rm(join(base, ...chain.slice(0, i + 1), '.git'), { force: true })
        for (const i of markers) await writeFile(join(base, ...chain.slice(0, i + 1), '.git'), 'gitdir: x\n')
        const from = join(base, ...chain.slice(0, start + 1))
        const cache = side ? join(base, 'd0', 'side', 'x') : join(base, ...chain.slice(0, cacheAt), 'c')
        const rootDepth = [...markers].filter((m) => m <= start).sort((a, b) => b - a)[0] ?? start
        const root = join(base, ...chain.slice(0, rootDepth + 1))
        expect(insideProject(cache, from)).toBe(cache.startsWith(`${root}/`))
      }),
      { numRuns: 60 },
    )
  })
})

describe('the cache directory and its key', () => {
  it('prepareUserCache makes the directory 0700 and a random 32-byte key 0600, once', async () => {
    const dir = join(base, 'cache', 'sysprompt')
    expect(userCacheKey(dir)).toEqual({ missing: true })
    const key = await prepareUserCache(dir)
    expect(key).toHaveLength(32)
    expect(await modeOf(dir)).toBe(0o700)
    expect(await modeOf(join(dir, 'key'))).toBe(0o600)
    forgetCacheKeys()
    expect(userCacheKey(dir)).toEqual({ key })
    expect(await prepareUserCache(dir)).toEqual(key)
  })

  it('makes private a directory of its own that only it could write to (0755, as earlier versions created it), and uses it', async () => {
    const dir = join(base, 'earlier', 'sysprompt')
    await mkdir(dir, { recursive: true })
    await chmod(dir, 0o755)
    expect(userCacheKey(dir)).toEqual({ missing: true })
    expect(await modeOf(dir)).toBe(0o700)
    await chmod(dir, 0o755)
    const key = await prepareUserCache(dir)
    expect(await modeOf(dir)).toBe(0o700)
    forgetCacheKeys()
    await chmod(dir, 0o755)
    expect(userCacheKey(dir)).toEqual({ key })
    expect(await modeOf(dir)).toBe(0o700)
  })

  it('refuses a directory open to others or a link; replaces a key open to others, a short one or a link', async () => {
    const dir = join(base, 'open', 'sysprompt')
    await mkdir(dir, { recursive: true, mode: 0o775 })
    await chmod(dir, 0o775)
    expect(userCacheKey(dir)).toEqual({
      problem: `the cache directory ${dir} is open to other users (mode 775, not 700), so it is not used: make it private or remove it`,
    })
    await expect(prepareUserCache(dir)).rejects.toThrow('is open to other users')
    await symlink(join(base, 'open'), join(base, 'linked'))
    forgetCacheKeys()
    expect(userCacheKey(join(base, 'linked'))).toEqual({
      problem: `the cache directory ${join(base, 'linked')} is a link, so it is not used: make it private or remove it`,
    })

    const good = join(base, 'good')
    const first = await prepareUserCache(good)
    for (const spoil of [
      () => chmod(join(good, 'key'), 0o644),
      () => writeFile(join(good, 'key'), 'short'),
    ]) {
      await spoil()
      forgetCacheKeys()
      expect(userCacheKey(good)).toHaveProperty('problem')
      const replaced = await prepareUserCache(good)
      expect(replaced).not.toEqual(first)
      expect(await modeOf(join(good, 'key'))).toBe(0o600)
    }
    await rm(join(good, 'key'))
    await writeFile(join(base, 'elsewhere-key'), Buffer.alloc(32, 1), { mode: 0o600 })
    await symlink(join(base, 'elsewhere-key'), join(good, 'key'))
    forgetCacheKeys()
    expect(userCacheKey(good)).toEqual({
      problem: `the cache key ${join(good, 'key')} cannot be read (ELOOP), so the cache was not used; a new key replaces it and the cache is rebuilt`,
    })
    await prepareUserCache(good)
    expect((await lstat(join(good, 'key'))).isFile()).toBe(true)
    expect(await readFile(join(base, 'elsewhere-key'))).toEqual(Buffer.alloc(32, 1))
  })
})

describe('token counts signed with the key', () => {
  const ID = 'o200k@gpt-tokenizer@4.0.0+split-1'
  const text = 'a text whose count someone would like to change'

  it('ignores counts whose MAC is not the key’s, reports it once, and rebuilds the file', async () => {
    const dir = join(base, 'counts-cache')
    const honest = diskCountCache({ dir })
    honest.set(ID, text, 11)
    expect(await honest.flush()).toEqual([])
    expect(diskCountCache({ dir }).get(ID, text)).toBe(11)
    const file = join(dir, 'counts', `${nodeHash(text).slice(0, 2)}.json`)
    const written = JSON.parse(await readFile(file, 'utf8'))
    // Forged: another count, a MAC under another key (every unkeyed check recomputed).
    const entries = [[`${ID} ${nodeHash(text)}`, 1]]
    const forged = {
      ...written,
      entries,
      mac: cacheMac(Buffer.alloc(32, 7), `${written.format}\n${JSON.stringify(entries)}`),
    }
    await writeFile(file, JSON.stringify(forged))
    const reader = diskCountCache({ dir })
    expect(reader.get(ID, text)).toBeUndefined()
    expect(diskCountCache({ dir }).get(ID, text)).toBeUndefined()
    expect(problems).toEqual([
      `the token counts in ${file} failed their checks; they were ignored and will be rebuilt`,
    ])
    reader.set(ID, text, 11)
    await reader.flush()
    expect(diskCountCache({ dir }).get(ID, text)).toBe(11)
  })

  it('reads nothing from a directory that is not private to the user', async () => {
    const dir = join(base, 'shared-cache')
    const writer = diskCountCache({ dir })
    writer.set(ID, text, 11)
    await writer.flush()
    await chmod(dir, 0o777)
    forgetCacheKeys()
    expect(diskCountCache({ dir }).get(ID, text)).toBeUndefined()
    expect(problems).toEqual([
      `the cache directory ${dir} is open to other users (mode 777, not 700), so it is not used: make it private or remove it`,
    ])
  })
})
