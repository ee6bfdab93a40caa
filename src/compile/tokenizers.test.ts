import fc from 'fast-check'
import { countTokens as libraryCl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as libraryO200k } from 'gpt-tokenizer/encoding/o200k_base'
import tokenizerPackage from 'gpt-tokenizer/package.json' with { type: 'json' }
import { describe, expect, it, vi } from 'vitest'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import { createPromptRegistry } from '../registry/index.js'
import type { CompileError } from './errors.js'
import { type BpeEncoding, SPLIT_LENGTH, splitCount } from './split-count.js'
import { cl100k, o200k, TOKENIZER_VERSION, withCountCache } from './tokenizers.js'
import type { TokenCountCache } from './types.js'

const asText = { disallowedSpecial: new Set<string>() }

/** A fresh copy of the tokenizer registry, with no loader registered and nothing loaded. */
async function freshRegistry() {
  vi.resetModules()
  const tokenizers = await import('./tokenizers.js')
  const { compile } = await import('./compile.js')
  const errors = await import('./errors.js')
  return { ...tokenizers, compile, CompileError: errors.CompileError }
}

async function assembly(text: string) {
  const registry = createPromptRegistry()
  registry.section({ name: 'only', order: 1, text })
  return registry.assemble()
}

/** A count cache in memory, recording what was asked. */
function mapCache(): TokenCountCache & { entries: Map<string, number>; sets: number } {
  const entries = new Map<string, number>()
  const cache = {
    entries,
    sets: 0,
    get: (tokenizer: string, text: string) => entries.get(`${tokenizer}\0${text}`),
    set: (tokenizer: string, text: string, count: number) => {
      cache.sets++
      entries.set(`${tokenizer}\0${text}`, count)
    },
  }
  return cache
}

describe('the encoding registry', () => {
  it('names the call to make when an encoding is neither registered nor loaded', async () => {
    const fresh = await freshRegistry()
    const a = await assembly('Hello there.')
    let thrown: unknown
    try {
      fresh.compile(a, { tokenizer: 'o200k' })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(fresh.CompileError)
    expect((thrown as CompileError).code).toBe('tokenizer-not-loaded')
    expect((thrown as Error).message).toContain("await loadTokenizer('o200k')")
    // The estimate needs no encoding.
    expect(fresh.compile(a, { tokenizer: 'estimate' }).tokens).toBe(Math.ceil('Hello there.'.length / 4))
  })

  it('loadTokenizer loads the encoding once, and compile then counts as the library does', async () => {
    const fresh = await freshRegistry()
    expect(fresh.isTokenizerLoaded('cl100k')).toBe(false)
    const tokenizer = await fresh.loadTokenizer('cl100k')
    expect(tokenizer).toBe(fresh.cl100k)
    expect(fresh.isTokenizerLoaded('cl100k')).toBe(true)
    expect(fresh.isTokenizerLoaded('o200k')).toBe(false)
    const text = 'Run the tests before you finish, and say which ones ran.'
    expect(fresh.compile(await assembly(text), { tokenizer: 'cl100k' }).tokens).toBe(libraryCl100k(text))
  })

  it('loadTokenizer loads the encoding it names, each with its own pre-tokenizer', async () => {
    // Counts differ between the two encodings on this text…
    const text = 'Lies die Dateien, bevor du sie änderst. テストを実行してください。'
    expect(libraryO200k(text, asText)).not.toBe(libraryCl100k(text, asText))
    // …and on one over-long run of letters, which o200k cuts at each capital and cl100k does not.
    const run = 'aB'.repeat(100)
    const { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } = await import(
      'gpt-tokenizer/encodingParams/constants'
    )
    const cl100kSplit = splitCount({ countTokens: libraryCl100k, splitRegex: CL100K_TOKEN_SPLIT_REGEX }, run)
    expect(splitCount({ countTokens: libraryCl100k, splitRegex: O200K_TOKEN_SPLIT_REGEX }, run)).not.toBe(
      cl100kSplit,
    )
    for (const [name, library] of [
      ['o200k', libraryO200k],
      ['cl100k', libraryCl100k],
    ] as const) {
      const fresh = await freshRegistry()
      const tokenizer = await fresh.loadTokenizer(name)
      expect(tokenizer.name).toBe(name)
      expect(tokenizer.count(text)).toBe(library(text, asText))
    }
    expect(splitCount({ countTokens: libraryO200k, splitRegex: CL100K_TOKEN_SPLIT_REGEX }, run)).not.toBe(
      libraryO200k(run, asText),
    )
    const fresh = await freshRegistry()
    expect((await fresh.loadTokenizer('cl100k')).count(run)).toBe(cl100kSplit)
    expect((await fresh.loadTokenizer('o200k')).count(run)).toBe(libraryO200k(run, asText))
  })

  it('takes a loader for either encoding and no other, and a disposer removes only its own loader', async () => {
    const fresh = await freshRegistry()
    const real = await import('gpt-tokenizer/encoding/cl100k_base')
    const { CL100K_TOKEN_SPLIT_REGEX } = await import('gpt-tokenizer/encodingParams/constants')
    const encoding = (): BpeEncoding => ({
      countTokens: real.countTokens,
      splitRegex: CL100K_TOKEN_SPLIT_REGEX,
    })
    expect(() => fresh.registerTokenizerLoader('p50k' as 'o200k', encoding)).toThrow(
      'registerTokenizerLoader: unknown encoding "p50k"',
    )
    const first = vi.fn(encoding)
    const second = vi.fn(encoding)
    const disposeFirst = fresh.registerTokenizerLoader('cl100k', first)
    const disposeSecond = fresh.registerTokenizerLoader('cl100k', second)
    // The first disposer runs after the second loader replaced its own: the second stays.
    disposeFirst()
    expect(fresh.cl100k.count('one two')).toBe(real.countTokens('one two'))
    expect(first).not.toHaveBeenCalled()
    expect(second).toHaveBeenCalledTimes(1)
    disposeSecond()

    // A disposed loader is gone: an encoding it never loaded stays unloaded.
    const again = await freshRegistry()
    const load = vi.fn(encoding)
    again.registerTokenizerLoader('cl100k', load)()
    expect(() => again.cl100k.count('one two')).toThrow(
      "call `await loadTokenizer('cl100k')` once before compiling (import \"sysprompt/node\" loads it by itself), or count with tokenizer: 'estimate'",
    )
    expect(load).not.toHaveBeenCalled()
  })

  it('counts empty text as no tokens without asking the tokenizer', async () => {
    const { countTokens } = await import('./tokenizers.js')
    const count = vi.fn((text: string) => text.split(' ').length)
    expect(countTokens({ name: 'words', count }, '')).toBe(0)
    expect(count).not.toHaveBeenCalled()
  })

  it('names the built-in tokenizers as options name them', async () => {
    // A module loaded afresh, as in the tests above (each load makes its own constants).
    const { resolveTokenizer, TOKENIZER_VERSION: version } = await freshRegistry()
    expect(version.startsWith(`gpt-tokenizer@${tokenizerPackage.version}+`)).toBe(true)
    for (const name of ['o200k', 'cl100k', 'estimate'] as const)
      expect(resolveTokenizer(name).name).toBe(name)
    expect(resolveTokenizer('estimate').count('12345')).toBe(2)
  })

  it('runs a registered loader only when a count misses, once', async () => {
    const fresh = await freshRegistry()
    const real = await import('gpt-tokenizer/encoding/o200k_base')
    const { O200K_TOKEN_SPLIT_REGEX } = await import('gpt-tokenizer/encodingParams/constants')
    const load = vi.fn(
      (): BpeEncoding => ({ countTokens: real.countTokens, splitRegex: O200K_TOKEN_SPLIT_REGEX }),
    )
    const dispose = fresh.registerTokenizerLoader('o200k', load)
    const a = await assembly('A section.')
    fresh.compile(a, { tokenizer: 'estimate' })
    expect(load).not.toHaveBeenCalled()
    fresh.compile(a, { tokenizer: 'o200k' })
    fresh.compile(await assembly('Another section.'), { tokenizer: 'o200k' })
    expect(load).toHaveBeenCalledTimes(1)
    dispose()
    // Disposing the loader keeps what it loaded.
    expect(fresh.o200k.count('still counts')).toBe(real.countTokens('still counts'))
  })

  it('counts from a count cache without loading any encoding', async () => {
    const cache = mapCache()
    const text = 'Keep each edit small enough to review.'
    const a = await assembly(text)
    const first = (await import('./compile.js')).compile(a, { tokenizer: 'o200k', countCache: cache })
    expect(cache.entries.size).toBeGreaterThan(0)
    const fresh = await freshRegistry()
    const again = fresh.compile(a, { tokenizer: 'o200k', countCache: cache })
    expect(again.tokens).toBe(first.tokens)
    expect(fresh.isTokenizerLoaded('o200k')).toBe(false)
  })

  it('keys cached counts by tokenizer name and version, and skips tokenizers without a version', () => {
    const cache = mapCache()
    withCountCache(o200k, cache).count('abc')
    withCountCache(cl100k, cache).count('abc')
    expect([...cache.entries.keys()].map((k) => k.split('\0')[0])).toEqual([
      `o200k@${TOKENIZER_VERSION}`,
      `cl100k@${TOKENIZER_VERSION}`,
    ])
    const custom = { name: 'words', count: (t: string) => t.split(' ').length }
    expect(withCountCache(custom, cache)).toBe(custom)
    expect(withCountCache(o200k, cache)).toBe(withCountCache(o200k, cache))
  })

  it("keys counts by the installed tokenizer package's version", () => {
    expect(TOKENIZER_VERSION.startsWith(`gpt-tokenizer@${tokenizerPackage.version}+`)).toBe(true)
  })
})

// Inputs built short by construction: segments shorter than the split
// length joined by a digit. No pre-token of either encoding holds a digit
// except runs of at most three digits, so no pre-token crosses a join.
const shortPieces = fc
  .array(fc.string({ unit: 'binary', maxLength: Math.floor(SPLIT_LENGTH / 2) - 1 }), { maxLength: 24 })
  .map((segments) => segments.join('0'))

describe('linear counting', () => {
  it('equals the plain count for every input whose pre-tokens are under the split length', () => {
    fc.assert(
      fc.property(shortPieces, (text) => {
        expect(o200k.count(text)).toBe(libraryO200k(text, asText))
        expect(cl100k.count(text)).toBe(libraryCl100k(text, asText))
      }),
      { numRuns: propertyRuns(200) },
    )
  })

  it('equals the plain count on ordinary prose longer than the split length', () => {
    const prose =
      'Read the files a change touches before you edit them. When a command fails, quote the first error line.\n\n'.repeat(
        40,
      )
    expect(o200k.count(prose)).toBe(libraryO200k(prose, asText))
  })

  it('counts special-token text as text', () => {
    expect(o200k.count('<|endoftext|> and <|im_start|>')).toBe(
      libraryO200k('<|endoftext|> and <|im_start|>', asText),
    )
  })

  it('cuts an over-long pre-token into pieces of at most the split length, never inside a surrogate pair', () => {
    const seen: string[] = []
    const spy: BpeEncoding = {
      countTokens: (text) => {
        seen.push(text)
        return 1
      },
      splitRegex: /[^\s\p{L}\p{N}]+|\p{L}+|\p{N}+|\s+/gu,
    }
    const emoji = `prefix ${'😀'.repeat(300)} suffix`
    splitCount(spy, emoji)
    expect(seen.join('')).toBe(emoji)
    for (const piece of seen) {
      expect(piece.length).toBeLessThanOrEqual(SPLIT_LENGTH + 8)
      expect(/[\ud800-\udbff]$/.test(piece)).toBe(false)
      expect(/^[\udc00-\udfff]/.test(piece)).toBe(false)
    }
  })

  it('stays within a few tokens of the plain count on a long run', () => {
    for (const run of ['\0'.repeat(5000), '-'.repeat(5000), 'ab'.repeat(2500)]) {
      const plain = libraryO200k(run, asText)
      expect(Math.abs(o200k.count(run) - plain)).toBeLessThanOrEqual(Math.ceil(run.length / SPLIT_LENGTH) + 1)
    }
  })
})
