import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base'
import { TextCache } from '../template/text-cache.js'
import type { Tokenizer, TokenizerName } from './types.js'

// Special-token text (`<|endoftext|>`) is ordinary text in a system prompt:
// counting it must never throw, so no special token is disallowed.
const asText = { disallowedSpecial: new Set<string>() }

/** OpenAI's o200k_base (GPT-4o and later): the default. */
export const o200k: Tokenizer = { name: 'o200k', count: (text) => countO200k(text, asText) }
/** OpenAI's cl100k_base (GPT-4, GPT-3.5). */
export const cl100k: Tokenizer = { name: 'cl100k', count: (text) => countCl100k(text, asText) }
/** ceil(UTF-16 length / 4): the seeds' fallback when no tokenizer fits the model. */
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

const counts = new WeakMap<Tokenizer, TextCache<number>>()

/**
 * Token count of `text`, memoized by text per tokenizer: recompiling after
 * one section changed tokenizes only that section.
 */
export function countTokens(tokenizer: Tokenizer, text: string): number {
  if (text.length === 0) return 0
  let cache = counts.get(tokenizer)
  if (cache === undefined) {
    cache = new TextCache(4096)
    counts.set(tokenizer, cache)
  }
  const hit = cache.get(text)
  if (hit !== undefined) return hit
  const n = tokenizer.count(text)
  cache.set(text, n)
  return n
}
