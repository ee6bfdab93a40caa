import { describe, expect, it } from 'vitest'
import { keyedHash } from './hash.js'

describe('keyedHash', () => {
  it('is HMAC-SHA256 of the text under the key (RFC 4231 test case 2)', () => {
    expect(keyedHash('Jefe', 'what do ya want for nothing?')).toBe(
      'hmac-sha256:5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    )
  })

  it('takes the key as bytes too, and differs by key', () => {
    const key = new Uint8Array(20).fill(0x0b)
    expect(keyedHash(key, 'Hi There')).toBe(
      'hmac-sha256:b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    )
    expect(keyedHash('a', 'text')).not.toBe(keyedHash('b', 'text'))
  })
})
