import { createHash } from 'node:crypto'
import { expect } from 'vitest'
import { type HashFunction, hashText } from '../shared/hash.js'
import type { PromptStore, UsageOutcome } from './types.js'

// Injected adapters that count the work done through them, for tests that
// check what a memo saves (a store read, a hash), and the usage outcome the
// usage tests start from.

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

/** Counts calls per store method: the store is an injected adapter. */
export function countingStore(inner: PromptStore): { store: PromptStore; counts: Record<string, number> } {
  const counts: Record<string, number> = {}
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        counts[String(key)] = (counts[String(key)] ?? 0) + 1
        return value.apply(target, args)
      }
    },
  })
  return { store, counts }
}

/**
 * A hash function of its own (so no memo has seen it yet) that records each
 * text it hashes. `hashText` keeps a memo of its own by text, which would
 * hide a memo above it that missed: `forget` pushes that memo's entries out
 * (checked with a probe), then starts counting afresh.
 */
export function countingHash(): { hash: HashFunction; hashed: string[]; forget: () => void } {
  const hashed: string[] = []
  const hash: HashFunction = (text) => {
    hashed.push(text)
    return sha256(text)
  }
  const forget = () => {
    hashText('probe', hash)
    for (let i = 0; i < 3 * 4096; i++) hashText(`flood ${i}`, hash)
    hashed.length = 0
    hashText('probe', hash)
    expect(hashed, 'the flood pushed the probe out of the text memo').toEqual(['probe'])
    hashed.length = 0
  }
  return { hash, hashed, forget }
}

/** A hot Anthropic usage outcome, with `over` laid on top. */
export const usageOutcome = (over: Partial<UsageOutcome> = {}): UsageOutcome => ({
  version: 1,
  at: '2025-01-01T00:00:00.000Z',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  inputTokens: 2000,
  cachedTokens: 1900,
  cacheWriteTokens: 0,
  outcome: 'hot',
  ...over,
})
