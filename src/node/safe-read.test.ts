import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeAdapters } from './adapters.js'
import { readConfinedFile } from './safe-read.js'

let root: string
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-safe-read-')))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

const read = (name: string, maxBytes: number) =>
  readConfinedFile(name, root, { roots: [root], maxBytes, fs: nodeAdapters().fs })

describe('readConfinedFile cuts at a character boundary', () => {
  it('drops the partial bytes of a character split by the cap', async () => {
    await writeFile(join(root, 'emoji.md'), 'a🧪b')
    // `🧪` is 4 bytes: caps of 2, 3 and 4 bytes all cut inside it.
    for (const maxBytes of [2, 3, 4]) {
      expect(await read('emoji.md', maxBytes)).toMatchObject({
        ok: true,
        text: 'a',
        truncated: true,
        size: 6,
      })
    }
    expect(await read('emoji.md', 5)).toMatchObject({ ok: true, text: 'a🧪', truncated: true })
  })

  it('keeps a genuine U+FFFD that ends the kept bytes', async () => {
    await writeFile(join(root, 'replacement.md'), 'x\uFFFDyz')
    expect(await read('replacement.md', 4)).toMatchObject({ ok: true, text: 'x\uFFFD', truncated: true })
  })

  it('yields a prefix of the text for any cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
        fc.nat(80),
        async (text, cap) => {
          // NUL makes a file binary; a leading BOM is dropped by design.
          if (text.includes('\0') || text.startsWith('\uFEFF')) return
          await writeFile(join(root, 'any.md'), text)
          const outcome = await read('any.md', cap + 1)
          expect(outcome.ok).toBe(true)
          if (!outcome.ok) return
          expect(text.startsWith(outcome.text)).toBe(true)
          expect(Buffer.byteLength(outcome.text)).toBeLessThanOrEqual(cap + 1)
          expect(outcome.truncated).toBe(Buffer.byteLength(text) > cap + 1)
        },
      ),
      { numRuns: 100 },
    )
  })
})
