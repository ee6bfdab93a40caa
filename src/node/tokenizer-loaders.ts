import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BpeEncoding, type EncodingName, registerTokenizerLoader } from '../compile/index.js'
import { runCachedModule } from './code-cache.js'
import { tableEncoding } from './rank-table.js'
import { readRankTable } from './rank-table-file.js'

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
 * Keeps V8's compiled form of gpt-tokenizer's rank modules in `dir` (the
 * user's cache directory; `undefined` turns it off, the default), for an
 * encoding that loads from gpt-tokenizer because the package's compact
 * table is missing or invalid: a later such load compiles in about half
 * the time.
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

/** Where `npm run build` writes the encodings' compact rank tables: `dist/tokenizer/`, beside this file's folder. */
const TABLES = fileURLToPath(new URL('../tokenizer/', import.meta.url))

/** The encoding's pre-tokenizer: a pinned deep import, which gpt-tokenizer's counter and the splitting of over-long pre-tokens need (src/compile/split-count.ts). */
function splitRegexOf(name: EncodingName): RegExp {
  const patterns = requireCjs('gpt-tokenizer/encodingParams/constants') as SplitPatterns
  return name === 'o200k' ? patterns.O200K_TOKEN_SPLIT_REGEX : patterns.CL100K_TOKEN_SPLIT_REGEX
}

/**
 * The encoding counted over its compact rank table in `dir`
 * (`<gpt-tokenizer's name>.bin`, src/node/rank-table.ts; the package's
 * `dist/tokenizer/` by default), when that is a valid table for the
 * installed gpt-tokenizer; otherwise `undefined`. A cold count then builds
 * no table at all.
 */
export function rankTableEncoding(name: EncodingName, dir: string = TABLES): BpeEncoding | undefined {
  const { version } = requireCjs('gpt-tokenizer/package.json') as { version: string }
  const file = readRankTable(join(dir, `${FULL_NAME[name]}.bin`), FULL_NAME[name], version)
  return file === undefined ? undefined : tableEncoding(file.table, file.splitRegex)
}

/**
 * Loads an encoding synchronously: over the package's compact rank table
 * when it is valid, otherwise (no table, another gpt-tokenizer, a damaged
 * file) from gpt-tokenizer's own tables. Both count the same.
 */
export function loadNodeEncoding(name: EncodingName): BpeEncoding {
  return (
    rankTableEncoding(name) ?? { countTokens: encodingApi(name).countTokens, splitRegex: splitRegexOf(name) }
  )
}

/** Registers the lazy Node loaders for o200k and cl100k (done once when `sysprompt/node` is imported). */
export function registerNodeTokenizers(): void {
  registerTokenizerLoader('o200k', () => loadNodeEncoding('o200k'))
  registerTokenizerLoader('cl100k', () => loadNodeEncoding('cl100k'))
}
