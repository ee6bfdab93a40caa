import { createRequire } from 'node:module'
import { type BpeEncoding, type EncodingName, registerTokenizerLoader } from '../compile/index.js'

// Synchronous loading keeps `compile` synchronous (SPEC §5): Node can
// `require` the tokenizer's CommonJS build at the moment a count first
// misses the caches, so nothing is loaded for a command that counts nothing.
const require = createRequire(import.meta.url)

interface EncodingModule {
  countTokens: BpeEncoding['countTokens']
}
interface SplitPatterns {
  O200K_TOKEN_SPLIT_REGEX: RegExp
  CL100K_TOKEN_SPLIT_REGEX: RegExp
}

function load(name: EncodingName): BpeEncoding {
  const encoding = require(
    name === 'o200k' ? 'gpt-tokenizer/encoding/o200k_base' : 'gpt-tokenizer/encoding/cl100k_base',
  ) as EncodingModule
  // A pinned deep import: the encoding's pre-tokenizer, which the splitting of
  // over-long pre-tokens needs (src/compile/split-count.ts).
  const patterns = require('gpt-tokenizer/encodingParams/constants') as SplitPatterns
  return {
    countTokens: encoding.countTokens,
    splitRegex: name === 'o200k' ? patterns.O200K_TOKEN_SPLIT_REGEX : patterns.CL100K_TOKEN_SPLIT_REGEX,
  }
}

/** Registers the lazy Node loaders for o200k and cl100k (done once when `sysprompt/node` is imported). */
export function registerNodeTokenizers(): void {
  registerTokenizerLoader('o200k', () => load('o200k'))
  registerTokenizerLoader('cl100k', () => load('cl100k'))
}
