import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { VECTORS } from '../../test/hash-vectors.test-helper.js'
import { promptOf } from '../compile/fixtures.test-helper.js'
import { sha256Hex } from '../shared/hash.js'
import { fileContentHash, nodeHash } from './node-hash.js'

/** sha256 of the UTF-8 bytes through `node:crypto`, the encoding spelled out rather than left to a default. */
const reference = (text: string) => createHash('sha256').update(new TextEncoder().encode(text)).digest('hex')

describe('nodeHash and the pure sha256 agree with sha256 of the UTF-8 bytes', () => {
  for (const { name, text, sha256 } of VECTORS) {
    it(name, () => {
      expect(reference(text)).toBe(sha256)
      expect(nodeHash(text)).toBe(sha256)
      expect(sha256Hex(text)).toBe(sha256)
      expect(fileContentHash(new TextEncoder().encode(text))).toBe(`sha256:${sha256}`)
    })
  }

  it('a compiled prompt hashes its text and each section as UTF-8, whichever hash it is given', () => {
    const sections = VECTORS.map((v, i) => ({ name: `s${i}`, text: v.text }))
    for (const hash of [nodeHash, sha256Hex, undefined]) {
      const compiled = promptOf(sections, hash === undefined ? {} : { hash })
      expect(compiled.hash).toBe(`sha256:${reference(compiled.text)}`)
      expect(compiled.text).toContain('👩\u200d💻')
      for (const section of compiled.sections) {
        expect(section.hash).toBe(`sha256:${reference(compiled.text.slice(section.start, section.end))}`)
      }
      // The sections without line breaks are the vectors' texts as they were.
      expect(compiled.sections[1]!.hash).toBe(`sha256:${VECTORS[1]!.sha256}`)
      expect(compiled.sections[2]!.hash).toBe(`sha256:${VECTORS[2]!.sha256}`)
    }
  })
})
