import { createRequire } from 'node:module'
import { type BpeEncoding, type EncodingName, registerTokenizerLoader } from '../compile/index.js'
import { runCachedModule } from './code-cache.js'

// Synchronous loading keeps `compile` synchronous (SPEC §5): Node can
// `require` the tokenizer's CommonJS build at the moment a count first
// misses the caches, so nothing is loaded for a command that counts nothing.
const requireCjs = createRequire(import.meta.url)

/** gpt-tokenizer's names of our encodings. */
const FULL_NAME: Record<EncodingName, 'o200k_base' | 'cl100k_base'> = {
  o200k: 'o200k_base',
  cl100k: 'cl100k_base',
}

type BpeRanks = (string | number[])[]
interface CountingApi {
  countTokens: BpeEncoding['countTokens']
}
interface GptEncodingModule {
  GptEncoding: { getEncodingApi(name: string, getRanks: () => BpeRanks): CountingApi }
}
interface SplitPatterns {
  O200K_TOKEN_SPLIT_REGEX: RegExp
  CL100K_TOKEN_SPLIT_REGEX: RegExp
}

let codeCacheDir: string | undefined

/**
 * Keeps V8's compiled form of the encodings' rank tables in `dir` (the
 * user's cache directory; `undefined` turns it off, the default): a later
 * process that loads an encoding compiles it in about half the time.
 * The CLI turns it on with the count cache; write what was built with
 * `flushCodeCaches()` (src/node/code-cache.ts).
 */
export function useEncodingCodeCache(dir: string | undefined): void {
  codeCacheDir = dir
}

function encodingApi(name: EncodingName): CountingApi {
  const full = FULL_NAME[name]
  if (codeCacheDir === undefined) return requireCjs(`gpt-tokenizer/encoding/${full}`) as CountingApi
  // What gpt-tokenizer's own `encoding/<name>` module does, its rank table compiled through the code cache.
  const ranks = runCachedModule(requireCjs.resolve(`gpt-tokenizer/bpeRanks/${full}`), codeCacheDir).exports
    .default as BpeRanks
  const { GptEncoding } = requireCjs('gpt-tokenizer/GptEncoding') as GptEncodingModule
  return GptEncoding.getEncodingApi(full, () => ranks)
}

/** Loads an encoding synchronously: gpt-tokenizer's tables and its pre-tokenizer. */
export function loadNodeEncoding(name: EncodingName): BpeEncoding {
  const api = encodingApi(name)
  // A pinned deep import: the encoding's pre-tokenizer, which the splitting of
  // over-long pre-tokens needs (src/compile/split-count.ts).
  const patterns = requireCjs('gpt-tokenizer/encodingParams/constants') as SplitPatterns
  return {
    countTokens: api.countTokens,
    splitRegex: name === 'o200k' ? patterns.O200K_TOKEN_SPLIT_REGEX : patterns.CL100K_TOKEN_SPLIT_REGEX,
  }
}

/** Registers the lazy Node loaders for o200k and cl100k (done once when `sysprompt/node` is imported). */
export function registerNodeTokenizers(): void {
  registerTokenizerLoader('o200k', () => loadNodeEncoding('o200k'))
  registerTokenizerLoader('cl100k', () => loadNodeEncoding('cl100k'))
}
