import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'
import fc from 'fast-check'
import { countTokens as libraryCl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as libraryO200k } from 'gpt-tokenizer/encoding/o200k_base'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkedFile, compileCached, flushCodeCaches, runCachedModule } from './code-cache.js'
import { loadNodeEncoding, useEncodingCodeCache } from './tokenizer-loaders.js'
import { cacheMac, forgetCacheKeys, onCacheProblem } from './user-cache.js'

let dir: string
let module: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sysprompt-code-cache-'))
  module = join(dir, 'ranks.js')
  // A module of the shape of gpt-tokenizer's rank tables: an array literal, `exports.default`.
  await writeFile(module, `const c0 = ${JSON.stringify(['a', 'b', [255, 1], 'ü'])};\nexports.default = c0;\n`)
})
afterEach(async () => {
  onCacheProblem(undefined)
  forgetCacheKeys()
  useEncodingCodeCache(undefined)
  await flushCodeCaches()
  await rm(dir, { recursive: true, force: true })
})

const cacheFile = () => join(dir, 'cache', 'v8', 'ranks.bin')

describe('runCachedModule', () => {
  it('compiles from source first, writes the cache on flush, and takes the code from it the next time', async () => {
    const cache = join(dir, 'cache')
    const first = runCachedModule(module, cache)
    expect(first).toEqual({ exports: { default: ['a', 'b', [255, 1], 'ü'] }, fromCache: false })
    expect(await flushCodeCaches()).toEqual([])
    const second = runCachedModule(module, cache)
    expect(second).toEqual({ exports: first.exports, fromCache: true })
    // Nothing new to write after a hit.
    await rm(cacheFile())
    expect(await flushCodeCaches()).toEqual([])
    await expect(readFile(cacheFile())).rejects.toThrow(/ENOENT/)
  })

  it('a cache of another source is not used but rebuilt', async () => {
    const cache = join(dir, 'cache')
    runCachedModule(module, cache)
    await flushCodeCaches()
    await writeFile(module, 'exports.default = ["changed"];\n')
    expect(runCachedModule(module, cache)).toEqual({ exports: { default: ['changed'] }, fromCache: false })
    await flushCodeCaches()
    expect(runCachedModule(module, cache).fromCache).toBe(true)
  })

  it('a damaged, truncated or foreign cache file is ignored and rebuilt, never run', async () => {
    const cache = join(dir, 'cache')
    runCachedModule(module, cache)
    await flushCodeCaches()
    const good = await readFile(cacheFile())
    const newline = good.indexOf(10)
    const flipped = Buffer.from(good)
    flipped[flipped.length - 8]! ^= 0xff
    const header = JSON.parse(good.subarray(0, newline).toString('utf8')) as Record<string, string>
    const foreign = Buffer.concat([
      Buffer.from(`${JSON.stringify({ ...header, node: 'v0.0.0' })}\n`),
      good.subarray(newline + 1),
    ])
    for (const bad of [
      flipped,
      good.subarray(0, good.length - 100),
      foreign,
      Buffer.from('{}\n'),
      Buffer.from(''),
    ]) {
      await writeFile(cacheFile(), bad)
      const run = runCachedModule(module, cache)
      expect(run).toEqual({ exports: { default: ['a', 'b', [255, 1], 'ü'] }, fromCache: false })
      expect(await flushCodeCaches()).toEqual([])
      expect(await readFile(cacheFile())).not.toEqual(bad)
      expect(runCachedModule(module, cache).fromCache).toBe(true)
    }
  })

  it('never reads or writes through a link', async () => {
    const cache = join(dir, 'cache')
    runCachedModule(module, cache)
    await flushCodeCaches()
    const elsewhere = join(dir, 'elsewhere.bin')
    await writeFile(elsewhere, await readFile(cacheFile()))
    await rm(cacheFile())
    await symlink(elsewhere, cacheFile())
    expect(runCachedModule(module, cache).fromCache).toBe(false)
    const problems = await flushCodeCaches()
    expect(problems.join('\n')).toMatch(/link/)
    expect(await readFile(elsewhere)).not.toHaveLength(0)
  })
})

describe('compileCached', () => {
  it('runs the file as a function of the given parameters, and keeps a cache only when asked, after the run', async () => {
    const script = join(dir, 'script.cjs')
    await writeFile(script, 'module.exports.sum = (a, b) => a + b + offset;\n')
    const path = join(dir, 'cache', 'v8', 'script.bin')
    const slot = { dir: join(dir, 'cache'), name: 'script' }
    const first = compileCached(script, slot, ['module', 'offset'])
    const module = { exports: {} as { sum?: (a: number, b: number) => number } }
    first.run(module, 10)
    expect(module.exports.sum?.(1, 2)).toBe(13)
    expect(await flushCodeCaches()).toEqual([])
    await expect(readFile(path)).rejects.toThrow(/ENOENT/)
    first.keep()
    expect(await flushCodeCaches()).toEqual([])
    expect(compileCached(script, slot, ['module', 'offset']).fromCache).toBe(true)
    // A known hash that is not the file's: the cache made for the file is not used.
    expect(compileCached(script, slot, ['module', 'offset'], '0'.repeat(64)).fromCache).toBe(false)
  })

  it('never runs a cache whose MAC is not under the user key, though every unkeyed check passes', async () => {
    const problems: string[] = []
    onCacheProblem((message) => problems.push(message))
    const script = join(dir, 'script.cjs')
    const honest = "module.exports.who = 'honest'\n"
    await writeFile(script, honest)
    const slot = { dir: join(dir, 'cache'), name: 'script' }
    const first = compileCached(script, slot, ['module'])
    first.run({ exports: {} })
    first.keep()
    expect(await flushCodeCaches()).toEqual([])
    const path = join(dir, 'cache', 'v8', 'script.bin')
    const written = await readFile(path)
    const { payload: _, mac: __, ...fields } = JSON.parse(written.subarray(0, written.indexOf(10)).toString())
    // V8 checks a cache against the source's length only: code compiled from other text of that length
    // would run (shown across processes by test/e2e/cli-cache-trust.test.ts; in one process V8's own
    // in-memory cache hides it).
    const evil = "module.exports.who = 'attacker'".padEnd(honest.length - 1, ' ')
    const compiled = new Script(`(function (module) {${evil}\n\n})`, { filename: script })
    ;(compiled.runInThisContext() as (m: unknown) => void)({ exports: {} })
    const data = compiled.createCachedData()
    // Forged: the honest header, the payload's hash recomputed, a MAC under a key that is not the user's.
    const forgedMac = cacheMac(Buffer.alloc(32, 9), `${JSON.stringify(fields)}\n0`)
    await writeFile(path, checkedFile({ ...fields, mac: forgedMac }, data))
    forgetCacheKeys()
    const again = compileCached(script, slot, ['module'])
    const module = { exports: {} as { who?: string } }
    again.run(module)
    expect(module.exports.who).toBe('honest')
    expect(again.fromCache).toBe(false)
    expect(problems).toEqual([`the code cache ${path} failed its checks; it was not run and will be rebuilt`])
    again.keep()
    await flushCodeCaches()
    expect(compileCached(script, slot, ['module']).fromCache).toBe(true)
  })

  it('without a cache path reads and writes nothing', async () => {
    const script = join(dir, 'script.cjs')
    await writeFile(script, 'module.exports = 1\n')
    const compiled = compileCached(script, undefined, ['module'])
    compiled.run({})
    compiled.keep()
    expect(compiled.fromCache).toBe(false)
    expect(await flushCodeCaches()).toEqual([])
  })
})

describe('encodings through the code cache', () => {
  it('count exactly as gpt-tokenizer counts, on a cold and on a warm cache', async () => {
    const cache = join(dir, 'cache')
    useEncodingCodeCache(cache)
    const cold = { o200k: loadNodeEncoding('o200k'), cl100k: loadNodeEncoding('cl100k') }
    expect(await flushCodeCaches()).toEqual([])
    for (const name of ['o200k_base', 'cl100k_base'])
      expect((await readFile(join(cache, 'v8', `${name}.bin`))).length).toBeGreaterThan(100_000)
    const warm = { o200k: loadNodeEncoding('o200k'), cl100k: loadNodeEncoding('cl100k') }
    const asText = { disallowedSpecial: new Set<string>() }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const o = libraryO200k(text, asText)
        const c = libraryCl100k(text, asText)
        expect(cold.o200k.countTokens(text, asText)).toBe(o)
        expect(warm.o200k.countTokens(text, asText)).toBe(o)
        expect(cold.cl100k.countTokens(text, asText)).toBe(c)
        expect(warm.cl100k.countTokens(text, asText)).toBe(c)
      }),
      { numRuns: 300 },
    )
    for (const text of [
      'hello world',
      '<|endoftext|> and <|im_start|>',
      'ünïcödé 日本語 🎉',
      'x'.repeat(500),
    ]) {
      expect(warm.o200k.countTokens(text, asText)).toBe(libraryO200k(text, asText))
      expect(warm.cl100k.countTokens(text, asText)).toBe(libraryCl100k(text, asText))
    }
  }, 60_000)
})
