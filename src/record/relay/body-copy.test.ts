import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { BodyCopy, captureBody } from './body-copy.js'

function copyOf(bytes: Buffer, cap?: number): BodyCopy {
  const copy = new BodyCopy(cap)
  for (let at = 0; at < bytes.length; at += 7) copy.add(bytes.subarray(at, at + 7))
  return copy
}

describe('captureBody', () => {
  const text = Buffer.from(JSON.stringify({ system: 'x'.repeat(300), tools: [] }))

  it.each([
    ['gzip', gzipSync(text)],
    ['br', brotliCompressSync(text)],
    ['zstd', zstdCompressSync(text)],
    ['deflate', deflateSync(text)],
    ['deflate', deflateRawSync(text)],
    ['identity', text],
    [undefined, text],
    ['gzip, br', brotliCompressSync(gzipSync(text))],
  ])('decodes %s', async (encoding, wire) => {
    const body = await captureBody(copyOf(wire), encoding)
    expect(body.state).toBe('complete')
    expect(Buffer.from(body.bytes!).equals(text)).toBe(true)
    expect(body.wireLength).toBe(wire.length)
  })

  it('keeps nothing past the wire cap and says truncated', async () => {
    const copy = copyOf(text, 100)
    expect(copy.truncated).toBe(true)
    expect(await captureBody(copy, undefined)).toEqual({ state: 'truncated', wireLength: text.length })
  })

  it('stops decoding at the cap and says too-large', async () => {
    const bomb = gzipSync(Buffer.alloc(10_000))
    const body = await captureBody(copyOf(bomb, 1000), 'gzip')
    expect(body).toMatchObject({ state: 'too-large', encoding: 'gzip' })
    expect(body.bytes).toBeUndefined()
  })

  it('says undecodable for an unknown coding or corrupt bytes', async () => {
    expect((await captureBody(copyOf(text), 'compress')).state).toBe('undecodable')
    expect((await captureBody(copyOf(text), 'gzip')).state).toBe('undecodable')
  })
})
