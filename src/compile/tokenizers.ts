import { TextCache } from '../shared/text-cache.js'
import { CompileError } from './errors.js'
import { type BpeEncoding, splitCount } from './split-count.js'
import type { TokenCountCache, Tokenizer, TokenizerName } from './types.js'

/** The BPE encodings sysprompt counts with (SPEC §5). */
export type EncodingName = 'o200k' | 'cl100k'
/** The encodings, in the order their errors list them. */
export const ENCODINGS: readonly EncodingName[] = ['o200k', 'cl100k']

/**
 * The version a persistent count cache keys counts by: the tokenizer
 * package (pinned exactly in package.json, a test keeps the two equal) and
 * our splitting of over-long pre-tokens (`split-count.ts`). Bump the split
 * number whenever the splitting changes a count.
 */
export const TOKENIZER_VERSION = 'gpt-tokenizer@4.0.0+split-1'

/** Loads an encoding synchronously (what `sysprompt/node` registers); runs the first time a count misses the caches. */
export type EncodingLoader = () => BpeEncoding

const loaders = new Map<EncodingName, EncodingLoader>()
const loaded = new Map<EncodingName, BpeEncoding>()

/**
 * Registers how to load an encoding the first time it is needed (the Node
 * layer registers `createRequire` loaders for both). Returns a disposer that
 * removes this loader (an encoding already loaded stays loaded).
 */
export function registerTokenizerLoader(name: EncodingName, load: EncodingLoader): () => void {
  if (!ENCODINGS.includes(name))
    throw new TypeError(`registerTokenizerLoader: unknown encoding "${String(name)}"`)
  loaders.set(name, load)
  return () => {
    if (loaders.get(name) === load) loaders.delete(name)
  }
}

/**
 * Loads an encoding where no synchronous loader is registered (browsers,
 * Deno, workers): `await loadTokenizer('o200k')` once before compiling.
 * Resolves to the tokenizer, ready to count.
 */
export async function loadTokenizer(name: EncodingName): Promise<Tokenizer> {
  if (!loaded.has(name)) {
    const [encoding, params] = await Promise.all([
      name === 'o200k'
        ? import('gpt-tokenizer/encoding/o200k_base')
        : import('gpt-tokenizer/encoding/cl100k_base'),
      // A pinned deep import: the encoding's pre-tokenizer, which the splitting needs (split-count.ts).
      import('gpt-tokenizer/encodingParams/constants'),
    ])
    loaded.set(name, {
      countTokens: encoding.countTokens,
      splitRegex: name === 'o200k' ? params.O200K_TOKEN_SPLIT_REGEX : params.CL100K_TOKEN_SPLIT_REGEX,
    })
  }
  return BUILT_IN[name]
}

/** Whether an encoding's tables are in memory (for tests and diagnostics: nothing loads an encoding it does not count with). */
export function isTokenizerLoaded(name: EncodingName): boolean {
  return loaded.has(name)
}

function encodingOf(name: EncodingName): BpeEncoding {
  let encoding = loaded.get(name)
  if (encoding !== undefined) return encoding
  const load = loaders.get(name)
  if (load === undefined) {
    throw new CompileError(
      'tokenizer-not-loaded',
      `the ${name} encoding is not loaded: call \`await loadTokenizer('${name}')\` once before compiling ` +
        `(import "sysprompt/node" loads it by itself), or count with tokenizer: 'estimate'`,
    )
  }
  encoding = load()
  loaded.set(name, encoding)
  return encoding
}

function bpe(name: EncodingName): Tokenizer {
  return { name, version: TOKENIZER_VERSION, count: (text) => splitCount(encodingOf(name), text) }
}

/** OpenAI's o200k_base (GPT-4o and later): the default. Its tables load the first time it counts. */
export const o200k: Tokenizer = bpe('o200k')
/** OpenAI's cl100k_base (GPT-4, GPT-3.5). Its tables load the first time it counts. */
export const cl100k: Tokenizer = bpe('cl100k')
/** ceil(UTF-16 length / 4): the seeds' fallback when no tokenizer fits the model. Loads nothing. */
export const estimate: Tokenizer = { name: 'estimate', count: (text) => Math.ceil(text.length / 4) }

const BUILT_IN: Record<TokenizerName, Tokenizer> = { o200k, cl100k, estimate }

/** The tokenizer an option names, or the one passed. */
export function resolveTokenizer(tokenizer: Tokenizer | TokenizerName | undefined): Tokenizer {
  if (tokenizer === undefined) return o200k
  if (typeof tokenizer !== 'string') return tokenizer
  const found = BUILT_IN[tokenizer]
  if (found === undefined) {
    throw new TypeError(
      `unknown tokenizer "${String(tokenizer)}"; use o200k, cl100k, estimate or a Tokenizer object`,
    )
  }
  return found
}

const wrapped = new WeakMap<Tokenizer, WeakMap<TokenCountCache, Tokenizer>>()

/**
 * `tokenizer` reading and filling a persistent count cache: a count found
 * there loads no encoding. The same tokenizer for the same pair (so the
 * in-memory memos keyed by tokenizer keep hitting); the tokenizer itself
 * when there is no cache or it has no `version` to key counts by.
 */
export function withCountCache(tokenizer: Tokenizer, cache: TokenCountCache | undefined): Tokenizer {
  if (cache === undefined || tokenizer.version === undefined) return tokenizer
  let byCache = wrapped.get(tokenizer)
  if (byCache === undefined) {
    byCache = new WeakMap()
    wrapped.set(tokenizer, byCache)
  }
  let found = byCache.get(cache)
  if (found === undefined) {
    const id = `${tokenizer.name}@${tokenizer.version}`
    found = {
      name: tokenizer.name,
      version: tokenizer.version,
      count: (text) => {
        let n = cache.get(id, text)
        if (n === undefined) {
          n = tokenizer.count(text)
          cache.set(id, text, n)
        }
        return n
      },
    }
    byCache.set(cache, found)
  }
  return found
}

const counts = new WeakMap<Tokenizer, TextCache<number>>()

/**
 * Token count of `text`, memoized by text per tokenizer: recompiling after
 * one section changed tokenizes only that section.
 */
export function countTokens(tokenizer: Tokenizer, text: string): number {
  if (text.length === 0) return 0
  let memo = counts.get(tokenizer)
  if (memo === undefined) {
    memo = new TextCache(4096)
    counts.set(tokenizer, memo)
  }
  const hit = memo.get(text)
  if (hit !== undefined) return hit
  const n = tokenizer.count(text)
  memo.set(text, n)
  return n
}
