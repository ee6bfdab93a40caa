import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { TextCache } from './text-cache.js'

/** A function from text to the lowercase hex sha256 of its UTF-8 bytes. */
export type HashFunction = (text: string) => string

/** The pure-JS sha256 (isomorphic); the node layer passes a faster one. */
export const sha256Hex: HashFunction = (text) => bytesToHex(sha256(utf8ToBytes(text)))

const memo = new WeakMap<HashFunction, TextCache<string>>()

/**
 * `sha256:` + hex of `text`, memoized by text per hash function, so hashing
 * an unchanged section again costs a lookup. The one place sysprompt hashes.
 */
export function hashText(text: string, hash: HashFunction = sha256Hex): string {
  let cache = memo.get(hash)
  if (cache === undefined) {
    cache = new TextCache(4096)
    memo.set(hash, cache)
  }
  const hit = cache.get(text)
  if (hit !== undefined) return hit
  const digest = hashTextOnce(text, hash)
  cache.set(text, digest)
  return digest
}

/**
 * `sha256:` + hex of `text`, not memoized: for a long text whose caller keeps
 * its own memo of it (a whole prompt), where a memo entry per text would keep
 * every text alive and cost more in garbage collection than it saves.
 */
export function hashTextOnce(text: string, hash: HashFunction = sha256Hex): string {
  return `sha256:${hash(text)}`
}

/**
 * `hmac-sha256:` + hex of `text` keyed with `key` (a per-user secret): a
 * hash that names a text without letting anyone who lacks the key test a
 * guess against it. Recordings keep it beside each part's text before
 * masking, so a change masking hides is still seen. Not memoized: keys vary.
 */
export function keyedHash(key: Uint8Array | string, text: string): string {
  const bytes = typeof key === 'string' ? utf8ToBytes(key) : key
  return `hmac-sha256:${bytesToHex(hmac(sha256, bytes, utf8ToBytes(text)))}`
}

/** JSON with object keys sorted by code unit, recursively, and no whitespace: what tool hashes cover. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key]
    if (v !== undefined) out[key] = sortKeys(v)
  }
  return out
}

/** UTF-8 length of `text` without allocating its bytes. */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}
